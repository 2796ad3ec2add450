import { zodResolver } from "@hookform/resolvers/zod";
import { CheckCircle2, ExternalLink, TriangleAlert } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { MASKED_CREDENTIAL, OPENAI_CREDENTIAL_MESSAGES as M, openAiKeyInputSchema, type CredentialInput, type CredentialVerification } from "@shared/credentials";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { useCredential, useRemoveCredential, useSaveCredential } from "./use-credential";

const STORED_KEY = { name: "Your OpenAI API key" };

/** AI provider integration (spec §2 Settings): the user's OpenAI key, stored encrypted on the server. */
export function OpenAiKeyCard() {
  const status = useCredential("openai_api_key");
  const save = useSaveCredential("openai_api_key");
  const remove = useRemoveCredential("openai_api_key");
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [fresh, setFresh] = useState<CredentialVerification | null>(null);
  // The answer to this page's save, else the stored outcome of the last check (kept across reloads).
  const verification = fresh ?? status.data?.verification ?? null;
  const form = useForm<CredentialInput>({ resolver: zodResolver(openAiKeyInputSchema), defaultValues: { value: "" } });
  const error = form.formState.errors.value?.message;

  const onSubmit = form.handleSubmit(async ({ value }) => {
    try {
      const result = await save.mutateAsync(value);
      form.reset({ value: "" });
      setFresh(result.verification);
      if (!result.verification || result.verification.verified) toast.success(M.savedToast, { description: "Your OpenAI API key has been stored securely." });
      else toast.error(result.verification.message === M.refused ? M.refusedToast : M.uncheckedToast, { description: result.verification.message });
    } catch (err) {
      toastFailure("Failed to save API key.", err);
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>OpenAI API Key</CardTitle>
        <CardDescription>
          Your assistants speak through the OpenAI Realtime API. The key needs access to the Realtime API (gpt-realtime models).
        </CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent className="grid gap-4">
          <FormField
            label="API Key"
            error={error}
            description={status.isPending ? "Checking for an existing key..." : status.error ? status.error.message : status.data?.exists ? `A key is stored (${status.data.hint}). Enter a new one to replace it.` : "No key stored yet."}
          >
            <Input
              type="password"
              autoComplete="off"
              placeholder={status.data?.exists ? MASKED_CREDENTIAL : "sk-..."}
              {...form.register("value")}
            />
          </FormField>
          {verification && (
            <p className={`flex items-center gap-2 text-sm ${verification.verified ? "text-success" : "text-warning"}`} role="status">
              {verification.verified ? <CheckCircle2 className="size-4" /> : <TriangleAlert className="size-4" />}
              {verification.message}
            </p>
          )}
          <ul className="list-disc space-y-1 pl-5 text-sm text-muted-foreground">
            <li>The key is encrypted before it is stored and is never shown again in full.</li>
            <li>Test calls and phone calls use this key; usage is billed by OpenAI to your account.</li>
          </ul>
        </CardContent>
        <CardFooter className="mt-6 flex flex-wrap items-center justify-between gap-3">
          <div className="flex gap-4 text-sm">
            <a className="inline-flex items-center gap-1 text-primary hover:underline" href="https://platform.openai.com/docs/guides/realtime" target="_blank" rel="noopener noreferrer">
              Realtime API docs <ExternalLink className="size-3" />
            </a>
            <a className="inline-flex items-center gap-1 text-primary hover:underline" href="https://platform.openai.com/api-keys" target="_blank" rel="noopener noreferrer">
              OpenAI dashboard <ExternalLink className="size-3" />
            </a>
          </div>
          <div className="flex gap-2">
            {status.data?.exists && (
              <Button type="button" variant="outline" onClick={() => setConfirmRemove(true)}>
                Remove Key
              </Button>
            )}
            <Button type="submit" disabled={save.isPending}>
              {save.isPending ? "Saving..." : "Save Key"}
            </Button>
          </div>
        </CardFooter>
      </form>
      <ConfirmDeleteDialog
        item={confirmRemove ? STORED_KEY : null}
        title="Remove the OpenAI API key?"
        consequence="will be deleted from Switchboard. Test calls and phone calls cannot start until you add a key again."
        onOpenChange={setConfirmRemove}
        onConfirm={async () => {
          try {
            await remove.mutateAsync();
            setFresh(null);
            toast.success("API Key Removed", { description: "Your OpenAI API key has been deleted." });
          } catch (err) {
            toastFailure("Failed to remove API key.", err);
            throw err;
          }
        }}
      />
    </Card>
  );
}
