import { useState } from "react";
import { API_KEY_MESSAGES, API_KEY_SCOPE, apiKeyInputSchema, type ApiKey, type CreatedApiKey } from "@shared/api-keys";
import { SecretDialog } from "@/components/secret-dialog";
import { AlertDialog, AlertDialogAction, AlertDialogCancel, AlertDialogContent, AlertDialogDescription, AlertDialogFooter, AlertDialogHeader, AlertDialogTitle } from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { toastFailure } from "@/components/ui/sonner";
import { ActionTable } from "@/components/table-view";
import { TableCell } from "@/components/ui/table";
import { queryKeys } from "@/lib/query-keys";
import { useSettingsList } from "./use-settings-list";
import { ErrorLine } from "@/components/form-dialog";

const day = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : "—");

/** Settings → API Keys: create (shown once), list, revoke; links the API reference. */
export function ApiKeysCard() {
  const [name, setName] = useState("");
  const [expiry, setExpiry] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const { list: keys, create, remove: revoke } = useSettingsList<ApiKey, CreatedApiKey>(queryKeys.apiKeys, "/api/api-keys", {
    created: API_KEY_MESSAGES.created,
    removed: API_KEY_MESSAGES.revoked,
    onCreated: (created) => {
      setShown(created.key);
      setName("");
      setExpiry("");
    },
    onCreateError: setError,
    onRemoveError: (err) => toastFailure("Failed to revoke the API key", err),
  });

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    // A date picked in the form expires at the end of that day, local time.
    const body = { name, expires_at: expiry ? new Date(`${expiry}T23:59:59`).toISOString() : null };
    const parsed = apiKeyInputSchema.safeParse(body);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? API_KEY_MESSAGES.nameRequired);
    setError(null);
    create.mutate(body);
  };

  const origin = typeof window === "undefined" ? "" : window.location.origin;
  return (
    <Card data-testid="api-keys-card">
      <CardHeader>
        <CardTitle>API Keys</CardTitle>
        <CardDescription>
          Let your CRM or scripts use Switchboard&apos;s API. Read the <a className="underline" href="/docs/api">API reference</a>. First request:
        </CardDescription>
        <p className="text-sm text-muted-foreground" data-testid="api-key-scope">
          {API_KEY_SCOPE}
        </p>
        <pre className="overflow-x-auto rounded-md bg-muted p-3 text-xs">{`curl -H "Authorization: Bearer sk_…" ${origin}/api/assistants`}</pre>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form onSubmit={submit} noValidate className="flex flex-wrap items-end gap-3" aria-label="Create API key">
          <Input className="w-56" aria-label="Key name" placeholder="Name, e.g. CRM" value={name} onChange={(e) => setName(e.target.value)} aria-invalid={error !== null} />
          <Input className="w-44" type="date" aria-label="Expiry date (optional)" value={expiry} onChange={(e) => setExpiry(e.target.value)} />
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating..." : "Create API key"}
          </Button>
        </form>
        <ErrorLine message={error} />
        {keys.data && keys.data.length > 0 && (
          <ActionTable
            label="API keys"
            heads={["Name", "Key", "Acts for", "Created", "Last used", "Expires"]}
            actions="empty"
            rows={keys.data}
            cells={(key) => (
              <>
                <TableCell>{key.name}</TableCell>
                <TableCell>
                  <code>{key.prefix}…</code>
                </TableCell>
                <TableCell>{key.created_by_name}</TableCell>
                <TableCell>{day(key.created_at)}</TableCell>
                <TableCell>{key.last_used_at ? new Date(key.last_used_at).toLocaleString() : "Never"}</TableCell>
                <TableCell>{key.expires_at ? day(key.expires_at) : "Never"}</TableCell>
              </>
            )}
            action={(key) => (
              <Button size="sm" variant="ghost" onClick={() => setRevoking(key)}>
                Revoke
              </Button>
            )}
          />
        )}
      </CardContent>
      <SecretDialog title="Your new API key" description={API_KEY_MESSAGES.copyOnce} secret={shown} onClose={() => setShown(null)} />
      <AlertDialog open={revoking !== null} onOpenChange={(open) => !open && setRevoking(null)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Revoke API key?</AlertDialogTitle>
            <AlertDialogDescription>
              Requests with “{revoking?.name}” ({revoking?.prefix}…) will be refused at once. This cannot be undone.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction onClick={() => revoking && void revoke(revoking)}>Revoke</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </Card>
  );
}
