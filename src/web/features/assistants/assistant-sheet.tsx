import type { Assistant, AssistantInput } from "@shared/assistants";
import { modelOptions, REALTIME_MODELS } from "@shared/assistants";
import { useState } from "react";
import { PanelSheet, PanelTabsList, type PanelState } from "@/components/panel-sheet";
import { Skeleton } from "@/components/ui/skeleton";
import { Tabs, TabsContent } from "@/components/ui/tabs";
import { useUnsavedChangesGuard } from "@/components/unsaved-changes";
import { AssistantDetails } from "./assistant-details";
import { AssistantForm } from "./assistant-form";
import { AssistantHistory } from "./assistant-history";
import { AssistantTests } from "./assistant-tests";
import { DraftBadge } from "./draft-badge";
import { useAssistantDefaults } from "./use-assistants";

interface AssistantSheetProps {
  panel: PanelState;
  /** The assistant the details/edit views are about (from the list). */
  assistant: Assistant | undefined;
  onPanelChange: (panel: PanelState) => void;
  onCreate: (values: AssistantInput) => Promise<void>;
  onUpdate: (id: string, values: AssistantInput) => Promise<void>;
  onTestCall: (assistant: Assistant) => void;
}

// Spec §2/§9: 600px, at most 60% from sm (640 px) and at most 50% from lg (1024 px). Below 640 px
// 60% is too narrow to type in, so there the panel takes the whole width.
const WIDTH = "w-full sm:w-[600px] sm:max-w-[60%] lg:max-w-[50%]";

export function AssistantSheet({ panel, assistant, onPanelChange, onCreate, onUpdate, onTestCall }: AssistantSheetProps) {
  const defaults = useAssistantDefaults();
  // Closing the panel or cancelling an edit with unsaved changes asks first.
  const { setDirty, guard, dialog } = useUnsavedChangesGuard();
  const close = () => guard(() => onPanelChange({ ...panel, open: false }));
  const defaultModel = defaults.data?.model ?? REALTIME_MODELS[0];
  const models = defaults.data?.models ?? modelOptions(defaultModel);
  // A failed defaults request still leaves a usable form (the built-in list); only wait while it runs.
  const formReady = !defaults.isPending;
  const [tab, setTab] = useState("details");
  const [openedOn, setOpenedOn] = useState(panel);
  if (openedOn !== panel) {
    // Each opening of an assistant (or return from its form) starts on its details.
    setOpenedOn(panel);
    setTab("details");
  }

  const title = panel.view === "create" ? "Create Assistant" : panel.view === "edit" ? "Edit Assistant" : (assistant?.name ?? "Assistant");
  const description =
    panel.view === "create"
      ? "Give your assistant a name, tell it how to behave and connect the tools it may use."
      : panel.view === "edit"
        ? `Change how ${assistant?.name ?? "this assistant"} behaves.`
        : "Assistant details";

  return (
    <PanelSheet open={panel.open} onClose={close} className={WIDTH} title={title} description={description}>

      {panel.view === "create" &&
        (formReady ? (
          <AssistantForm key="create" defaultModel={defaultModel} models={models} onSubmit={onCreate} onCancel={close} onDirtyChange={setDirty} />
        ) : (
          <FormSkeleton />
        ))}

      {panel.view !== "create" && assistant && panel.view === "details" && (
        <Tabs value={tab} onValueChange={setTab} className="gap-4">
          <PanelTabsList tabs={{ details: "Details", history: "History", tests: "Tests" }} />
          <TabsContent value="details">
            <AssistantDetails
              assistant={assistant}
              onEdit={() => onPanelChange({ open: true, view: "edit", id: assistant.id })}
              onTestCall={() => onTestCall(assistant)}
              onPublish={() => setTab("history")}
            />
          </TabsContent>
          <TabsContent value="history">
            <AssistantHistory assistantId={assistant.id} />
          </TabsContent>
          <TabsContent value="tests">
            <AssistantTests assistantId={assistant.id} />
          </TabsContent>
        </Tabs>
      )}

      {panel.view === "edit" && assistant && <DraftBadge assistantId={assistant.id} className="mx-6" />}
      {panel.view === "edit" &&
        assistant &&
        (formReady ? (
          <AssistantForm
            key={`edit-${assistant.id}`}
            assistant={assistant}
            defaultModel={defaultModel}
            models={models}
            onSubmit={(values) => onUpdate(assistant.id, values)}
            onCancel={() => guard(() => onPanelChange({ open: true, view: "details", id: assistant.id }))}
            onDirtyChange={setDirty}
          />
        ) : (
          <FormSkeleton />
        ))}
      {dialog}
    </PanelSheet>
  );
}

function FormSkeleton() {
  return (
    <div className="grid gap-6 px-6" aria-busy="true">
      {[10, 10, 16, 48].map((h, i) => (
        <div key={i} className="grid gap-2">
          <Skeleton className="h-4 w-24" />
          <Skeleton style={{ height: `${h * 0.25}rem` }} className="w-full" />
        </div>
      ))}
    </div>
  );
}
