import { Wrench } from "lucide-react";
import { useState } from "react";
import { TOOL_MESSAGES, type Tool, type ToolInput } from "@shared/tools";
import { CreateFirstButton, EmptyState, ListPageHeader, LoadError, TableSkeleton } from "@/components/page-states";
import { toast, toastFailure } from "@/components/ui/sonner";
import { DeleteToolDialog } from "./delete-tool-dialog";
import type { PanelState } from "@/components/panel-sheet";
import { ToolSheet } from "./tool-sheet";
import { useCan } from "@/lib/use-membership";
import { ToolTestPanel } from "./tool-test-panel";
import { ToolsTable } from "./tools-table";
import { useCreateTool, useDeleteTool, useTools, useUpdateTool } from "./use-tools";

export function ToolsPage() {
  const tools = useTools();
  const createTool = useCreateTool();
  const build = useCan("build");
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
      toastFailure(TOOL_MESSAGES.createFailed, err);
    }
  };

  const onUpdate = async (id: string, values: ToolInput) => {
    try {
      await updateTool.mutateAsync({ id, patch: values });
      toast.success(TOOL_MESSAGES.updated);
      setPanel({ open: true, view: "details", id });
    } catch (err) {
      toastFailure(TOOL_MESSAGES.updateFailed, err);
    }
  };

  const onDelete = async (tool: Tool) => {
    try {
      await deleteTool.mutateAsync(tool.id);
      toast.success(TOOL_MESSAGES.deleted, { description: `${tool.name} was removed from your tools and assistants.` });
      setPanel((p) => (p.view !== "create" && p.id === tool.id ? { ...p, open: false } : p));
      setTest((t) => (t.id === tool.id ? { ...t, open: false } : t));
    } catch (err) {
      toastFailure(TOOL_MESSAGES.deleteFailed, err);
      throw err;
    }
  };

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <ListPageHeader title="Tools" description="HTTP endpoints your assistants can call during a conversation." onCreate={build ? openCreate : undefined} />

      {tools.isPending ? (
        <TableSkeleton
          label="Loading tools"
          headerWidths={[16, 10, 12, 20]}
          cells={["h-4 w-36", "hidden h-5 w-14 sm:block", "h-5 w-12", "hidden h-4 w-48 md:block", "ml-auto h-8 w-24"]}
        />
      ) : tools.isError ? (
        <LoadError what="tools" message={tools.error.message} onRetry={() => void tools.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={Wrench}
          title="No tools yet"
          action={build && <CreateFirstButton onClick={openCreate}>Create your first tool</CreateFirstButton>}
        >
          A tool is an API endpoint an assistant can call mid-call: look up an order, book a slot, create a ticket. Create one,
          then test it here before connecting it to an assistant.
        </EmptyState>
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
