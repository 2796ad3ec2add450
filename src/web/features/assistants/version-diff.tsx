import { X } from "lucide-react";
import type { AssistantContent, AssistantVersionSummary } from "@shared/versions";
import { VERSION_DIFF_FIELDS } from "@shared/versions";
import { analysisSettingsSchema, describeAnalysis } from "@shared/analysis";
import { Button } from "@/components/ui/button";
import { OptionSelect } from "@/components/option-select";
import { cn } from "@/lib/utils";
import { useVersion, useVersions, useVersionStats } from "./use-versions";

/** A field of a version as text, the way the panel compares it (tools by name, switches On/Off). */
export function fieldText(content: AssistantContent, key: string, toolNames: Map<string, string>): string {
  const value = (content as Record<string, unknown>)[key];
  if (value === undefined || value === null || value === "") return "—";
  if (key === "tool_ids") return (value as string[]).map((id) => toolNames.get(id) ?? `Deleted tool (${id.slice(0, 8)})`).join("\n") || "—";
  if (key === "transfer_destinations") {
    const list = value as AssistantContent["transfer_destinations"];
    return list.map((d) => `${d.label} (${d.phone_number}): ${d.when_to_use}`).join("\n") || "—";
  }
  // Stored as settings (possibly from before a setting existed): read through the schema, as lines.
  if (key === "analysis") {
    const parsed = analysisSettingsSchema.safeParse(value);
    if (parsed.success) return describeAnalysis(parsed.data);
  }
  if (typeof value === "boolean") return value ? "On" : "Off";
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

interface VersionDiffProps {
  assistantId: string;
  pair: [number, number];
  toolNames: Map<string, string>;
  onPairChange: (pair: [number, number]) => void;
  onClose: () => void;
}

/** Two versions side by side, changed fields marked, with the calls each version answered. */
export function VersionDiff({ assistantId, pair, toolNames, onPairChange, onClose }: VersionDiffProps) {
  const versions = useVersions(assistantId);
  const [left, right] = pair;
  const a = useVersion(assistantId, left);
  const b = useVersion(assistantId, right);
  const options = versions.data?.data ?? [];
  return (
    <section className="grid gap-3 rounded-md border p-3" aria-label="Compare versions">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-medium">Compare versions</h3>
        <Button size="icon" variant="ghost" onClick={onClose} aria-label="Close comparison">
          <X />
        </Button>
      </div>
      <div className="grid grid-cols-2 gap-3">
        <VersionPicker label="Left version" value={left} options={options} onChange={(v) => onPairChange([v, right])} />
        <VersionPicker label="Right version" value={right} options={options} onChange={(v) => onPairChange([left, v])} />
        <VersionStats assistantId={assistantId} version={left} />
        <VersionStats assistantId={assistantId} version={right} />
      </div>
      {a.data && b.data && (
        <dl className="grid gap-3">
          {VERSION_DIFF_FIELDS.filter((f) => f.key in a.data.content || f.key in b.data.content).map((f) => {
            const [x, y] = [fieldText(a.data.content, f.key, toolNames), fieldText(b.data.content, f.key, toolNames)];
            return (
              <div key={f.key} className="grid gap-1" data-field={f.label} data-changed={x !== y}>
                <dt className="text-sm font-medium text-muted-foreground">
                  {f.label}
                  {x !== y && <span className="ml-2 text-xs text-amber-600 dark:text-amber-400">changed</span>}
                </dt>
                <dd className="grid grid-cols-2 gap-3 text-[13px]">
                  {[x, y].map((text, i) => (
                    <div key={i} className={cn("max-h-60 overflow-y-auto rounded-md border px-2 py-1 break-words whitespace-pre-wrap", x !== y && "bg-muted/60")}>
                      {text}
                    </div>
                  ))}
                </dd>
              </div>
            );
          })}
        </dl>
      )}
    </section>
  );

}

function VersionPicker({ label, value, options, onChange }: { label: string; value: number; options: AssistantVersionSummary[]; onChange: (v: number) => void }) {
  return (
    <OptionSelect
      aria-label={label}
      value={String(value)}
      onValueChange={(v) => onChange(Number(v))}
      options={options.map((o) => ({ value: String(o.version), label: `v${o.version}` }))}
    />
  );
}

/** The phone and test calls a version answered: how many, how long on average, errors, cost. */
function VersionStats({ assistantId, version }: { assistantId: string; version: number }) {
  const stats = useVersionStats(assistantId, version);
  if (!stats.data) return <p className="text-xs text-muted-foreground">{stats.isError ? "Stats unavailable" : "Loading stats..."}</p>;
  const s = stats.data;
  const avg = s.average_duration_ms === null ? "—" : `${Math.round(s.average_duration_ms / 1000)} s`;
  const errors = s.error_share === null ? "—" : `${Math.round(s.error_share * 100)}%`;
  return (
    <p className="text-xs text-muted-foreground" data-stats={version}>
      {s.calls} calls · average {avg} · errors {errors} · ${s.cost.toFixed(2)}
    </p>
  );
}
