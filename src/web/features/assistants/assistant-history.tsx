import { useQuery } from "@tanstack/react-query";
import { History, Phone, Undo2 } from "lucide-react";
import { Link } from "react-router";
import { useState } from "react";
import type { PhoneNumber } from "@shared/phone-numbers";
import { VERSION_MESSAGES, type AssistantVersionSummary } from "@shared/versions";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast, toastFailure } from "@/components/ui/sonner";
import { longDate } from "./assistant-dates";
import { useToolOptions } from "./use-assistants";
import { apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useCan } from "@/lib/use-membership";
import { PublishDraft } from "./publish-draft";
import { useRollback, useVersions } from "./use-versions";
import { VersionDiff } from "./version-diff";

/**
 * The History panel: publish the draft, the published versions newest first (which one is
 * live), roll back to one, and compare any two side by side with the calls each answered.
 */
export function AssistantHistory({ assistantId }: { assistantId: string }) {
  const versions = useVersions(assistantId);
  // Every tool of the user: an old version may name a tool the draft no longer has.
  const tools = useToolOptions();
  const toolNames = new Map((tools.data ?? []).map((t) => [t.id, t.name]));
  const mayBuild = useCan("build");
  const rollback = useRollback(assistantId);
  const [compare, setCompare] = useState<[number, number] | null>(null);
  const [rollingBack, setRollingBack] = useState<AssistantVersionSummary | null>(null);
  // Which numbers answer with which version: a pinned one, or the latest.
  const numbers = useQuery({ queryKey: queryKeys.phoneNumbers, queryFn: () => apiList<PhoneNumber>("/api/phone-numbers") });

  if (versions.isPending) return <p className="px-6 text-sm text-muted-foreground">Loading versions...</p>;
  if (versions.isError) return <p className="px-6 text-sm text-destructive">{versions.error.message}</p>;
  const { live_version: live, draft_changed: draftChanged, data: list } = versions.data;

  const ours = (numbers.data ?? []).filter((n) => n.assistant_id === assistantId);
  const numbersOn = (version: number) => ours.filter((n) => (n.assistant_version ?? live) === version).map((n) => n.phone_number);
  const next = (list[0]?.version ?? 0) + 1;

  const onRollback = async (v: AssistantVersionSummary) => {
    try {
      const published = await rollback.mutateAsync(v.version);
      toast.success(VERSION_MESSAGES.rolledBack(published.version, v.version));
      setRollingBack(null);
    } catch (err) {
      toastFailure(VERSION_MESSAGES.publishFailed, err);
    }
  };

  return (
    <div className="grid gap-6 px-6 pb-8">
      {mayBuild && <PublishDraft assistantId={assistantId} draftChanged={draftChanged} live={live} />}

      {compare && <VersionDiff assistantId={assistantId} pair={compare} toolNames={toolNames} onPairChange={setCompare} onClose={() => setCompare(null)} />}

      <ol className="grid gap-3" aria-label="Versions">
        {list.map((v) => (
          <li key={v.version} className="grid gap-1 rounded-md border p-3 text-sm" data-version={v.version}>
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">v{v.version}</span>
              {v.version === live && <Badge variant="secondary">{VERSION_MESSAGES.latest}</Badge>}
              {numbersOn(v.version).length > 0 && <Badge data-testid="version-numbers">{VERSION_MESSAGES.runsOn(numbersOn(v.version).join(", "))}</Badge>}
              {v.published_with_failures && <Badge variant="destructive">Published with failing tests</Badge>}
              <span className="text-muted-foreground">
                {longDate(v.published_at)}
                {v.published_by ? ` by ${v.published_by.name}` : ""}
              </span>
            </div>
            {v.rolled_back_from !== null && <p className="text-muted-foreground">Rolled back to the content of v{v.rolled_back_from}</p>}
            {v.note && <p className="whitespace-pre-wrap">{v.note}</p>}
            <div className="flex flex-wrap gap-2 pt-1">
              <Button size="sm" variant="outline" asChild>
                <Link to={`/calls?assistant_id=${assistantId}&assistant_version=${v.version}`}>
                  <Phone />
                  Calls
                </Link>
              </Button>
              {live !== null && v.version !== live && (
                <>
                  <Button size="sm" variant="outline" onClick={() => setCompare([v.version, live])}>
                    <History />
                    Compare with v{live}
                  </Button>
                  {mayBuild && (
                    <Button size="sm" variant="outline" onClick={() => setRollingBack(v)} disabled={rollback.isPending}>
                      <Undo2 />
                      Roll back
                    </Button>
                  )}
                </>
              )}
              {list.length > 1 && v.version === live && (
                <Button size="sm" variant="outline" onClick={() => setCompare([list.find((o) => o.version !== live)!.version, live])}>
                  <History />
                  Compare
                </Button>
              )}
            </div>
          </li>
        ))}
      </ol>
      <ConfirmDialog
        open={rollingBack !== null}
        onOpenChange={(open) => !open && !rollback.isPending && setRollingBack(null)}
        title={rollingBack ? VERSION_MESSAGES.rollbackTitle(rollingBack.version) : ""}
        description={rollingBack ? VERSION_MESSAGES.rollbackBody(rollingBack.version, next) : ""}
        cancelDisabled={rollback.isPending}
        action={
          <Button onClick={() => rollingBack && void onRollback(rollingBack)} disabled={rollback.isPending}>
            {VERSION_MESSAGES.rollbackConfirm}
          </Button>
        }
      />
    </div>
  );
}
