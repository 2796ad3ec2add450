import { useState } from "react";
import { useNavigate } from "react-router";
import type { AccountSummary } from "@shared/account";
import { ACCOUNT_MESSAGES } from "@shared/account";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Button } from "@/components/ui/button";
import { Card, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { useAccountSummary, useDeleteAccount } from "./use-account";

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Each thing the deletion removes, with the user's own count once it is known. */
function consequences(s: AccountSummary | undefined): string[] {
  const n = (count: number | undefined, one: string, many?: string) => (count === undefined ? (many ?? `${one}s`) : plural(count, one, many));
  return [
    `${n(s?.assistants, "assistant")}`,
    `${n(s?.tools, "tool")}`,
    `${n(s?.phoneNumbers, "phone number")}, released from your Twilio account`,
    `${n(s?.calls, "call record")} with their transcripts`,
    `${n(s?.recordings, "call recording")}`,
    "your stored credentials (OpenAI key, Twilio credentials)",
  ];
}

/** Delete my account: a confirmation that names everything that goes, and the password. */
export function DeleteAccountCard() {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  // The server refused for a reason beyond the password (409: a number Twilio did not release):
  // its message says what to do, so it stays in the dialog rather than in a passing toast.
  const [blocked, setBlocked] = useState<string | null>(null);
  const summary = useAccountSummary(open);
  const remove = useDeleteAccount();
  const navigate = useNavigate();

  const close = (next: boolean) => {
    if (remove.isPending) return;
    setOpen(next);
    setPassword("");
    setError(null);
    setBlocked(null);
  };

  const confirm = async () => {
    if (!password) return setError(ACCOUNT_MESSAGES.deleteConfirmRequired);
    setBlocked(null);
    try {
      await remove.mutateAsync({ password });
      toast.success(ACCOUNT_MESSAGES.accountDeleted);
      navigate("/", { replace: true });
    } catch (err) {
      if (err instanceof ApiError && err.status === 400) setError(err.message);
      else if (err instanceof ApiError && err.status === 409) setBlocked(err.message);
      else toastFailure("Failed to delete account", err);
    }
  };

  return (
    <Card className="border-destructive/40">
      <CardHeader>
        <CardTitle>Delete account</CardTitle>
        <CardDescription>Permanently delete your account and everything in it. This cannot be undone.</CardDescription>
      </CardHeader>
      <CardFooter className="justify-end">
        <Button variant="destructive" onClick={() => setOpen(true)}>
          Delete My Account
        </Button>
      </CardFooter>
      <ConfirmDialog
        open={open}
        onOpenChange={close}
        title="Delete your account?"
        description="This permanently deletes your account and cannot be undone. It removes:"
        cancelDisabled={remove.isPending}
        action={
          <Button variant="destructive" onClick={() => void confirm()} disabled={remove.isPending}>
            {remove.isPending ? "Deleting..." : "Delete Account"}
          </Button>
        }
      >
        <ul className="list-disc space-y-1 pl-5 text-sm" aria-label="What is deleted" aria-busy={summary.isPending}>
          {consequences(summary.data).map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        {blocked && (
          <p role="alert" data-testid="delete-account-blocked" className="rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive">
            {blocked}
          </p>
        )}
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
        >
          <FormField label="Your password" error={error}>
            <Input type="password" autoComplete="current-password" value={password} onChange={(e) => (setPassword(e.target.value), setError(null))} />
          </FormField>
        </form>
      </ConfirmDialog>
    </Card>
  );
}
