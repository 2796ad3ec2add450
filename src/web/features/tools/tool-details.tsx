import { FlaskConical, Pencil, Trash2 } from "lucide-react";
import type { Tool } from "@shared/tools";
import { DetailField, DetailsBody } from "@/components/panel-sheet";
import { Button } from "@/components/ui/button";
import { prettyJson } from "@/lib/format";
import { FORMAT_LABELS, isEmptyJson, longDate, MethodBadge, orderedSchema, TypeBadge } from "./tool-format";

interface ToolDetailsProps {
  tool: Tool;
  onTest: () => void;
  onEdit: () => void;
  onDelete: () => void;
}

/** Tool Details (spec §2): every field, the JSON ones pretty-printed; the name is the panel's title. */
export function ToolDetails({ tool, onTest, onEdit, onDelete }: ToolDetailsProps) {
  return (
    <DetailsBody
      actions={
        <>
          <Button onClick={onTest}>
            <FlaskConical />
            Test
          </Button>
          <Button variant="outline" onClick={onEdit}>
            <Pencil />
            Edit
          </Button>
          <Button variant="outline" className="text-destructive hover:bg-red-50 hover:text-destructive sm:ml-auto" onClick={onDelete}>
            <Trash2 />
            Delete
          </Button>
        </>
      }
    >
        <DetailField label="Description" fallback="No description provided">
          {tool.description}
        </DetailField>
        <div className="grid gap-6 sm:grid-cols-3">
          <DetailField label="Type">
            <TypeBadge type={tool.type} />
          </DetailField>
          <DetailField label="HTTP Method">
            <MethodBadge method={tool.http_method} />
          </DetailField>
          <DetailField label="Parameter Format">{FORMAT_LABELS[tool.parameter_format] ?? tool.parameter_format}</DetailField>
        </div>
        <DetailField label="Endpoint URL">
          <span className="font-mono text-[13px] break-all">{tool.end_point_url}</span>
        </DetailField>
        <DetailField label="API Key">
          {tool.api_key_set ? (
            <span className="font-mono text-[13px]">{tool.api_key_hint ?? "••••"}</span>
          ) : (
            <span className="text-muted-foreground italic">No API key</span>
          )}
        </DetailField>
        <JsonField label="Headers" value={tool.http_headers} />
        <JsonField label="Parameters" value={orderedSchema(tool.parameters)} />
        <JsonField label="Request Body" value={tool.request_body} />
        <div className="grid gap-6 sm:grid-cols-2">
          <DetailField label="Created">{longDate(tool.created_at)}</DetailField>
          <DetailField label="Last Updated">{longDate(tool.updated_at)}</DetailField>
        </div>
    </DetailsBody>
  );
}

function JsonField({ label, value }: { label: string; value: unknown }) {
  return (
    <DetailField label={label}>
      {isEmptyJson(value) ? (
        <span className="text-muted-foreground italic">None</span>
      ) : (
        <pre className="max-h-72 overflow-auto rounded-md border bg-muted/40 px-3 py-2 font-mono text-[12.5px] leading-relaxed whitespace-pre">
          {prettyJson(value)}
        </pre>
      )}
    </DetailField>
  );
}
