import { useQueryClient } from "@tanstack/react-query";
import { Bot } from "lucide-react";
import { useState, type ComponentType } from "react";
import { ASSISTANT_MESSAGES, type Assistant, type AssistantInput } from "@shared/assistants";
import { VERSION_MESSAGES } from "@shared/versions";
import { CreateFirstButton, EmptyState, ListPageHeader, LoadError, TableSkeleton } from "@/components/page-states";
import { toast } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { useCan } from "@/lib/use-membership";
import { queryKeys } from "@/lib/query-keys";
import type { PanelState } from "@/components/panel-sheet";
import { AssistantSheet } from "./assistant-sheet";
import { AssistantsTable } from "./assistants-table";
import { DeleteAssistantDialog } from "./delete-assistant-dialog";
import { GettingStartedChecklist } from "./getting-started-checklist";
import { useAssistants, useCreateAssistant, useDeleteAssistant, useUpdateAssistant } from "./use-assistants";
import { fetchDrafts } from "./use-versions";

/** Spec §8: a lost session has its own message; anything else names what failed and why. */
function showFailure(title: string, err: unknown, id?: string | number) {
  if (err instanceof ApiError && err.status === 401) toast.error(ASSISTANT_MESSAGES.authRequired, { id });
  else toast.error(title, { id, description: err instanceof Error ? err.message : undefined });
}

/**
 * What the page needs of a test-call panel. The app hands the test-call feature's panel in
 * (app/assistants-route.tsx), and the type checker holds the two shapes together there.
 */
interface TestCallSlot {
  assistant: { id: string; name: string } | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

export function AssistantsPage({ TestCallPanel }: { TestCallPanel: ComponentType<TestCallSlot> }) {
  const assistants = useAssistants();
  const createAssistant = useCreateAssistant();
  const updateAssistant = useUpdateAssistant();
  const deleteAssistant = useDeleteAssistant();
  const build = useCan("build");
  const queryClient = useQueryClient();

  const [panel, setPanel] = useState<PanelState>({ open: false, view: "create" });
  const [deleting, setDeleting] = useState<Assistant | null>(null);
  const [testCall, setTestCall] = useState<{ open: boolean; assistant: { id: string; name: string } | null }>({ open: false, assistant: null });

  const list = assistants.data ?? [];
  const panelAssistant = panel.view === "create" ? undefined : list.find((a) => a.id === panel.id);

  const openTestCall = (assistant: Assistant) => {
    // One side panel at a time: the call panel takes the place of the assistant panel.
    setPanel((p) => ({ ...p, open: false }));
    setTestCall({ open: true, assistant: { id: assistant.id, name: assistant.name } });
  };

  const onCreate = async (values: AssistantInput) => {
    const id = toast.loading(ASSISTANT_MESSAGES.creating);
    try {
      const created = await createAssistant.mutateAsync(values);
      toast.success(ASSISTANT_MESSAGES.created, { id });
      setPanel({ open: true, view: "details", id: created.id });
    } catch (err) {
      showFailure(ASSISTANT_MESSAGES.createFailed, err, id);
    }
  };

  const onUpdate = async (assistantId: string, values: AssistantInput) => {
    try {
      await updateAssistant.mutateAsync({ id: assistantId, patch: values });
      // What callers hear now: the draft saved, or (no versioned field changed) the version they already hear.
      const state = (await queryClient.fetchQuery({ queryKey: queryKeys.drafts, queryFn: fetchDrafts, staleTime: 0 })).find((d) => d.assistant_id === assistantId);
      const live = state?.live_version ?? null;
      toast.success(live === null ? ASSISTANT_MESSAGES.updated : state!.draft_changed ? VERSION_MESSAGES.draftSaved(live) : VERSION_MESSAGES.savedLive(live));
      setPanel({ open: true, view: "details", id: assistantId });
    } catch (err) {
      showFailure(ASSISTANT_MESSAGES.updateFailed, err);
    }
  };

  const onDelete = async (assistant: Assistant) => {
    try {
      await deleteAssistant.mutateAsync(assistant.id);
      toast.success(ASSISTANT_MESSAGES.deleted);
      setPanel((p) => (p.view !== "create" && p.id === assistant.id ? { ...p, open: false } : p));
    } catch (err) {
      showFailure(ASSISTANT_MESSAGES.deleteFailed, err);
      throw err;
    }
  };

  const openCreate = () => setPanel({ open: true, view: "create" });

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <ListPageHeader title="Assistants" description="Build voice assistants, connect their tools and test them live." onCreate={build ? openCreate : undefined} />
      {build && <GettingStartedChecklist onCreateAssistant={openCreate} />}

      {assistants.isPending ? (
        <TableSkeleton
          label="Loading assistants"
          headerWidths={[20, 32, 10, 16]}
          cells={["h-4 w-36", "hidden h-4 flex-1 md:block", "h-4 w-6", "hidden h-4 w-24 sm:block", "ml-auto h-8 w-24"]}
        />
      ) : assistants.isError ? (
        <LoadError what="assistants" message={assistants.error.message} onRetry={() => void assistants.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState
          icon={Bot}
          title="No assistants yet"
          action={build && <CreateFirstButton onClick={openCreate}>Create your first assistant</CreateFirstButton>}
        >
          An assistant answers calls with its own instructions, first message, voice and tools. Create one to get started.
        </EmptyState>
      ) : (
        <AssistantsTable
          assistants={list}
          onOpen={(a) => setPanel({ open: true, view: "details", id: a.id })}
          onEdit={(a) => setPanel({ open: true, view: "edit", id: a.id })}
          onTestCall={openTestCall}
          onDelete={setDeleting}
        />
      )}

      <AssistantSheet
        // An assistant deleted elsewhere (another tab) closes its panel once the list no longer has it.
        panel={panel.view !== "create" && !panelAssistant ? { ...panel, open: false } : panel}
        assistant={panelAssistant}
        onPanelChange={setPanel}
        onCreate={onCreate}
        onUpdate={onUpdate}
        onTestCall={openTestCall}
      />
      <DeleteAssistantDialog assistant={deleting} onOpenChange={(open) => !open && setDeleting(null)} onConfirm={onDelete} />
      <TestCallPanel
        assistant={testCall.assistant}
        open={testCall.open}
        onOpenChange={(open) => {
          setTestCall((t) => ({ ...t, open }));
          // A finished test call ticks the checklist's step.
          if (!open) void queryClient.invalidateQueries({ queryKey: queryKeys.gettingStarted });
        }}
      />
    </section>
  );
}
