import { Wrench } from "lucide-react";
import { Link } from "react-router";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Skeleton } from "@/components/ui/skeleton";
import { useToolOptions } from "./use-assistants";

interface ToolPickerProps {
  value: string[];
  onChange: (ids: string[]) => void;
  /** Labels the group (the field's label id). */
  labelId: string;
}

/** A checkbox list of the signed-in user's tools, each with its type. */
export function ToolPicker({ value, onChange, labelId }: ToolPickerProps) {
  const { data: tools, isPending, isError, error, refetch } = useToolOptions();
  const selected = new Set(value);

  const toggle = (id: string, checked: boolean) => {
    // Keep the order the user picked them in: it is the order the model sees them.
    onChange(checked ? [...value.filter((v) => v !== id), id] : value.filter((v) => v !== id));
  };

  if (isPending) {
    return (
      <div className="grid gap-2 rounded-md border p-3" aria-busy="true" aria-labelledby={labelId}>
        {[0, 1, 2].map((i) => (
          <div key={i} className="flex items-center gap-3">
            <Skeleton className="size-4" />
            <Skeleton className="h-4 w-40" />
          </div>
        ))}
      </div>
    );
  }

  if (isError) {
    return (
      <div className="flex items-center justify-between gap-3 rounded-md border border-dashed p-3 text-sm" role="alert">
        <span className="text-muted-foreground">Couldn't load your tools: {error.message}</span>
        <Button type="button" variant="outline" size="sm" onClick={() => void refetch()}>
          Retry
        </Button>
      </div>
    );
  }

  if (tools.length === 0) {
    return (
      <div className="flex items-center gap-3 rounded-md border border-dashed p-3 text-sm text-muted-foreground">
        <Wrench className="size-4 shrink-0" />
        <span>
          You have no tools yet.{" "}
          <Link to="/tools" className="font-medium text-primary underline-offset-4 hover:underline">
            Create a tool
          </Link>{" "}
          to let the assistant call your APIs.
        </span>
      </div>
    );
  }

  return (
    <div role="group" aria-labelledby={labelId} className="max-h-60 divide-y overflow-y-auto rounded-md border">
      {tools.map((tool) => {
        const id = `tool-option-${tool.id}`;
        return (
          <label key={tool.id} htmlFor={id} className="flex cursor-pointer items-center gap-3 px-3 py-2.5 text-sm hover:bg-muted/50">
            <Checkbox id={id} checked={selected.has(tool.id)} onCheckedChange={(c) => toggle(tool.id, c === true)} />
            <span className="min-w-0 flex-1 truncate font-medium">{tool.name}</span>
            <Badge variant="outline" className="font-normal text-muted-foreground">
              {tool.type}
            </Badge>
          </label>
        );
      })}
    </div>
  );
}
