import { Rocket } from "lucide-react";
import { useEffect, useState } from "react";
import { VERSION_MESSAGES } from "@shared/versions";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast, toastFailure } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { usePublishVersion } from "./use-versions";
import { useTestRun } from "./use-tests";

/**
 * Publish the draft. With test scenarios the server runs them against the draft first (202):
 * the panel follows that run and publishes when it is done; a failing scenario asks to confirm.
 */
export function PublishDraft({ assistantId, draftChanged, live }: { assistantId: string; draftChanged: boolean; live: number | null }) {
  const publish = usePublishVersion(assistantId);
  const [note, setNote] = useState("");
  const [testingRun, setTestingRun] = useState<string | null>(null);
  const [failures, setFailures] = useState<string | null>(null);
  const run = useTestRun(testingRun);

  const submit = async (confirmFailures: boolean) => {
    try {
      const answer = await publish.mutateAsync({ note, ...(confirmFailures ? { confirm_failures: true } : {}) });
      if ("status" in answer) {
        setTestingRun(answer.test_run_id);
        return;
      }
      setNote("");
      setFailures(null);
      toast.success(VERSION_MESSAGES.published(answer.version));
    } catch (err) {
      if (err instanceof ApiError && err.code === "tests_failed") return setFailures(err.message);
      toastFailure(VERSION_MESSAGES.publishFailed, err);
    }
  };

  // Once the draft's run is over, ask again: the server publishes or says what failed.
  const finished = run.data && run.data.status !== "running" ? run.data.status : null;
  useEffect(() => {
    if (!finished) return;
    setTestingRun(null);
    if (finished === "done") void submit(false);
    // submit reads the latest note; running it again on its identity would publish twice.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [finished]);

  const busy = publish.isPending || testingRun !== null;
  return (
    <section className="grid gap-3 rounded-md border p-4" aria-label="Publish">
      <p className="text-sm">
        {draftChanged ? "The draft has changes that callers do not hear yet." : `The draft is the same as v${live}.`} Phone numbers run the live version;
        the Test Call runs the draft.
      </p>
      <div className="grid gap-1.5">
        <Label htmlFor="publish-note">Note (optional)</Label>
        <Input id="publish-note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} placeholder="What changed" />
      </div>
      <Button className="justify-self-start" onClick={() => void submit(false)} disabled={busy || !draftChanged}>
        <Rocket />
        Publish
      </Button>
      {testingRun && (
        <p className="text-sm text-muted-foreground" role="status">
          Testing the draft before publishing{run.data ? `: ${run.data.progress.finished} of ${run.data.progress.total} scenarios done` : "..."}
        </p>
      )}
      <ConfirmDialog
        open={failures !== null}
        onOpenChange={(open) => !open && !publish.isPending && setFailures(null)}
        title="Publish with failing tests?"
        description={<>{failures} The results are on the Tests tab; the version will say it was published with failures.</>}
        cancelDisabled={publish.isPending}
        action={
          <Button variant="destructive" onClick={() => void submit(true)} disabled={publish.isPending}>
            Publish anyway
          </Button>
        }
      />
    </section>
  );
}
