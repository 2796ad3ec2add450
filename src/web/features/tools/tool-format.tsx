import { format, isValid, parseISO } from "date-fns";
import type { HttpMethod, ParameterFormat, ToolType } from "@shared/tools";
import { Badge, type BadgeProps } from "@/components/ui/badge";
import { cn } from "@/lib/utils";

export const TYPE_LABELS: Record<ToolType, string> = { API: "API", connector: "Connector" };
export const FORMAT_LABELS: Record<ParameterFormat, string> = { standard: "Standard", "database-query": "Database query" };

const TYPE_VARIANTS: Record<ToolType, BadgeProps["variant"]> = { API: "secondary", connector: "success" };

export function TypeBadge({ type }: { type: string }) {
  const known = type as ToolType;
  return <Badge variant={TYPE_VARIANTS[known] ?? "outline"}>{TYPE_LABELS[known] ?? type}</Badge>;
}

const METHOD_CLASSES: Record<HttpMethod, string> = {
  GET: "bg-emerald-50 text-emerald-700 ring-emerald-600/20",
  POST: "bg-sky-50 text-sky-700 ring-sky-600/20",
  PUT: "bg-amber-50 text-amber-800 ring-amber-600/20",
  DELETE: "bg-red-50 text-red-700 ring-red-600/20",
};

export function MethodBadge({ method, className }: { method: string; className?: string }) {
  return (
    <span
      className={cn(
        "inline-flex w-fit items-center rounded-md px-1.5 py-0.5 font-mono text-[11px] font-semibold tracking-wide ring-1 ring-inset",
        METHOD_CLASSES[method as HttpMethod] ?? "bg-muted text-muted-foreground ring-border",
        className,
      )}
    >
      {method}
    </span>
  );
}

/** Long form for the details panel (spec §9), with the spec's fallbacks. */
export function longDate(iso: string | null | undefined): string {
  if (!iso) return "Unknown date";
  const date = parseISO(iso);
  return isValid(date) ? format(date, "MMMM d, yyyy 'at' h:mm a") : "Invalid date";
}

/**
 * The database stores JSON as jsonb, which reorders keys ("required" before "properties");
 * a schema reads best in the order people write it.
 */
export function orderedSchema(parameters: Record<string, unknown>): Record<string, unknown> {
  const { type, description, properties, required, ...rest } = parameters;
  return Object.fromEntries(
    Object.entries({ type, description, properties, required, ...rest }).filter(([, v]) => v !== undefined),
  );
}

/** True for {}, [] and nothing at all: such JSON fields read better as "None". */
export function isEmptyJson(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === "object" && Object.keys(value).length === 0;
}
