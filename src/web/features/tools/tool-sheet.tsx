import type { Tool, ToolInput } from "@shared/tools";
import { PanelSheet, PanelTabsList, type PanelState } from "@/components/panel-sheet";
import { useUnsavedChangesGuard } from "@/components/unsaved-changes";
import { Tabs, TabsContent } from "@/components/ui/tabs";
import { ToolConnectors } from "./tool-connectors";
import { ToolDetails } from "./tool-details";
import { ToolForm } from "./tool-form";

interface ToolSheetProps {
  panel: PanelState;
  /** The tool the details/edit views are about (from the list). */
  tool: Tool | undefined;
  onPanelChange: (panel: PanelState) => void;
  onCreate: (values: ToolInput) => Promise<void>;
  onUpdate: (id: string, values: ToolInput) => Promise<void>;
  onTest: (tool: Tool) => void;
  onDelete: (tool: Tool) => void;
}

// Spec §9: panels are about 45% wide, at every breakpoint from sm (640 px) up. Below 640 px a
// 45% panel is too narrow to type in, so there it takes the full width.
export const PANEL_WIDTH = "w-full sm:w-[45%] sm:max-w-[45%]";

export function ToolSheet({ panel, tool, onPanelChange, onCreate, onUpdate, onTest, onDelete }: ToolSheetProps) {
  // Closing the panel or cancelling an edit with unsaved changes asks first.
  const { setDirty, guard, dialog } = useUnsavedChangesGuard();
  const close = () => guard(() => onPanelChange({ ...panel, open: false }));
  const title = panel.view === "create" ? "Create Tool" : panel.view === "edit" ? "Edit Tool" : (tool?.name ?? "Tool Details");
  const description =
    panel.view === "create"
      ? "Define an HTTP endpoint your assistants can call during a conversation."
      : panel.view === "edit"
        ? `Change how ${tool?.name ?? "this tool"} calls its endpoint.`
        : "Tool Details";

  return (
    <PanelSheet open={panel.open} onClose={close} className={PANEL_WIDTH} title={title} description={description}>

      {panel.view === "create" && (
        <Tabs defaultValue="api" className="flex flex-1 flex-col gap-4">
          <PanelTabsList tabs={{ api: "API", connectors: "Connectors" }} />
          {/* forceMount keeps what was typed when the user peeks at the connectors. */}
          <TabsContent value="api" forceMount className="flex flex-1 flex-col data-[state=inactive]:hidden">
            <ToolForm key="create" onSubmit={onCreate} onCancel={close} onDirtyChange={setDirty} />
          </TabsContent>
          <TabsContent value="connectors">
            <ToolConnectors />
          </TabsContent>
        </Tabs>
      )}

      {panel.view === "details" && tool && (
        <ToolDetails
          tool={tool}
          onTest={() => onTest(tool)}
          onEdit={() => onPanelChange({ open: true, view: "edit", id: tool.id })}
          onDelete={() => onDelete(tool)}
        />
      )}

      {panel.view === "edit" && tool && (
        <ToolForm
          key={`edit-${tool.id}`}
          tool={tool}
          onSubmit={(values) => onUpdate(tool.id, values)}
          onCancel={() => guard(() => onPanelChange({ open: true, view: "details", id: tool.id }))}
          onDirtyChange={setDirty}
        />
      )}
      {dialog}
    </PanelSheet>
  );
}
