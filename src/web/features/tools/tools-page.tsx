import { AlertCircle, Plus, Wrench } from "lucide-react";
import { useState } from "react";
import { TOOL_MESSAGES, type Tool, type ToolInput } from "@shared/tools";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/sonner";
import { DeleteToolDialog } from "./delete-tool-dialog";
import { ToolSheet, type PanelState } from "./tool-sheet";
import { ToolTestPanel } from "./tool-test-panel";
import { ToolsTable } from "./tools-table";
import { useCreateTool, useDeleteTool, useTools, useUpdateTool } from "./use-tools";

const failure = (title: string, err: unknown) => toast.error(title, { description: err instanceof Error ? err.message : undefined });

export function ToolsPage() {
  const tools = useTools();
  const createTool = useCreateTool();
  const updateTool = useUpdateTool();
  const deleteTool = useDeleteTool();

  const [panel, setPanel] = useState<PanelState>({ open: false, view: "create" });
  const [deleting, setDeleting] = useState<Tool | null>(null);
  const [test, setTest] = useState<{ open: boolean; id: string | null }>({ open: false, id: null });

  const list = tools.data ?? [];
  const panelTool = panel.view === "create" ? undefined : list.find((t) => t.id === panel.id);
  const testTool = list.find((t) => t.id === test.id) ?? null;

  const openCreate = () => setPanel({ open: true, view: "create" });
  const openTest = (tool: Tool) => {
    // One side panel at a time: the test panel takes the place of the tool panel.
    setPanel((p) => ({ ...p, open: false }));
    setTest({ open: true, id: tool.id });
  };

  const onCreate = async (values: ToolInput) => {
    try {
      await createTool.mutateAsync(values);
      toast.success(TOOL_MESSAGES.created);
      setPanel((p) => ({ ...p, open: false }));
    } catch (err) {
      failure(TOOL_MESSAGES.createFailed, err);
    }
  };

  const onUpdate = async (id: string, values: ToolInput) => {
    try {
      await updateTool.mutateAsync({ id, patch: values });
      toast.success(TOOL_MESSAGES.updated);
      setPanel({ open: true, view: "details", id });
    } catch (err) {
      failure(TOOL_MESSAGES.updateFailed, err);
    }
  };

  const onDelete = async (tool: Tool) => {
    try {
      await deleteTool.mutateAsync(tool.id);
      toast.success(TOOL_MESSAGES.deleted, { description: `${tool.name} was removed from your tools and assistants.` });
      setPanel((p) => (p.view !== "create" && p.id === tool.id ? { ...p, open: false } : p));
      setTest((t) => (t.id === tool.id ? { ...t, open: false } : t));
    } catch (err) {
      failure(TOOL_MESSAGES.deleteFailed, err);
      throw err;
    }
  };

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">Tools</h1>
          <p className="text-sm text-muted-foreground">HTTP endpoints your assistants can call during a conversation.</p>
        </div>
        <Button onClick={openCreate}>
          <Plus />
          Create new
        </Button>
      </div>

      {tools.isPending ? (
        <TableSkeleton />
      ) : tools.isError ? (
        <div role="alert" className="flex flex-col items-center gap-3 rounded-lg border border-dashed px-6 py-14 text-center">
          <AlertCircle className="size-8 text-destructive" />
          <div className="grid gap-1">
            <p className="font-medium">Couldn't load your tools</p>
            <p className="text-sm text-muted-foreground">{tools.error.message}</p>
          </div>
          <Button variant="outline" onClick={() => void tools.refetch()}>
            Try again
          </Button>
        </div>
      ) : list.length === 0 ? (
        <div className="flex flex-col items-center gap-4 rounded-lg border border-dashed px-6 py-16 text-center">
          <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
            <Wrench className="size-6" />
          </div>
          <div className="grid max-w-sm gap-1">
            <p className="font-medium">No tools yet</p>
            <p className="text-sm text-muted-foreground">
              A tool is an API endpoint an assistant can call mid-call: look up an order, book a slot, create a ticket. Create one,
              then test it here before connecting it to an assistant.
            </p>
          </div>
          <Button variant="outline" onClick={openCreate}>
            <Plus />
            Create your first tool
          </Button>
        </div>
      ) : (
        <ToolsTable
          tools={list}
          onOpen={(t) => setPanel({ open: true, view: "details", id: t.id })}
          onTest={openTest}
          onEdit={(t) => setPanel({ open: true, view: "edit", id: t.id })}
          onDelete={setDeleting}
        />
      )}

      <ToolSheet
        panel={panel}
        tool={panelTool}
        onPanelChange={setPanel}
        onCreate={onCreate}
        onUpdate={onUpdate}
        onTest={openTest}
        onDelete={setDeleting}
      />
      <ToolTestPanel tool={testTool} open={test.open} onOpenChange={(open) => setTest((t) => ({ ...t, open }))} />
      <DeleteToolDialog tool={deleting} onOpenChange={(open) => !open && setDeleting(null)} onConfirm={onDelete} />
    </section>
  );
}

function TableSkeleton() {
  return (
    <div className="overflow-hidden rounded-lg border" aria-busy="true" aria-label="Loading tools">
      <div className="flex h-10 items-center gap-6 border-b bg-muted/40 px-4">
        {[16, 10, 12, 20].map((w, i) => (
          <Skeleton key={i} className="h-3" style={{ width: `${w * 0.25}rem` }} />
        ))}
      </div>
      {[0, 1, 2, 3].map((row) => (
        <div key={row} className="flex h-14 items-center gap-6 border-b px-4 last:border-0">
          <Skeleton className="h-4 w-36" />
          <Skeleton className="hidden h-5 w-14 sm:block" />
          <Skeleton className="h-5 w-12" />
          <Skeleton className="hidden h-4 w-48 md:block" />
          <Skeleton className="ml-auto h-8 w-24" />
        </div>
      ))}
    </div>
  );
}
