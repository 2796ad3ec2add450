import { useState } from "react";
import { toast } from "sonner";
import type { CallRecord } from "@shared/call-records";
import { rubricFromAnalysis, SAVE_AS_TEST_MESSAGES, saveCallAsTestSchema } from "@shared/replay";
import { DialogFormFooter, ErrorBanner } from "@/components/form-dialog";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { formatCallDate } from "./call-format";
import { useSaveCallAsTest } from "./use-calls";

/** Call details → "Save as test": the scenario's name and rubric (prefilled from the analysis); the caller's words come from the call. */
export function SaveAsTestDialog({ call, onOpenChange }: { call: CallRecord | null; onOpenChange: (open: boolean) => void }) {
  const save = useSaveCallAsTest();
  const [name, setName] = useState("");
  const [rubric, setRubric] = useState("");
  const [error, setError] = useState<string | null>(null);
  // By id: the record is re-read while its analysis runs, and what the user typed must stay.
  const [openedFor, setOpenedFor] = useState<string | null>(null);
  if ((call?.id ?? null) !== openedFor) {
    setOpenedFor(call?.id ?? null);
    setName(call ? `Call of ${formatCallDate(call.start_time)}` : "");
    setRubric(call ? rubricFromAnalysis(call.analysis) : "");
    setError(null);
  }

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!call) return;
    const parsed = saveCallAsTestSchema.safeParse({ name, rubric });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? null);
      return;
    }
    setError(null);
    try {
      await save.mutateAsync({ callId: call.id, input: parsed.data });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return;
    }
    toast.success(SAVE_AS_TEST_MESSAGES.saved);
    onOpenChange(false);
  };

  return (
    <Dialog open={call !== null} onOpenChange={(open) => !save.isPending && onOpenChange(open)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{SAVE_AS_TEST_MESSAGES.title}</DialogTitle>
          <DialogDescription>{SAVE_AS_TEST_MESSAGES.description}</DialogDescription>
        </DialogHeader>
        <ErrorBanner message={error} />
        <form id="save-as-test-form" onSubmit={(e) => void submit(e)} noValidate className="grid gap-4">
          <FormField label="Name">
            <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
          </FormField>
          <FormField label="Success criteria" description={SAVE_AS_TEST_MESSAGES.rubricHint}>
            <Textarea value={rubric} onChange={(e) => setRubric(e.target.value)} rows={5} placeholder="The assistant offers a callback when it cannot change the address." />
          </FormField>
        </form>
        <DialogFormFooter formId="save-as-test-form" busy={save.isPending} onCancel={() => onOpenChange(false)}>
          {SAVE_AS_TEST_MESSAGES.button}
        </DialogFormFooter>
      </DialogContent>
    </Dialog>
  );
}
