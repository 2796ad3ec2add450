import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import {
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_MESSAGES,
  webhookInputSchema,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookWithSecret,
} from "@shared/webhooks";
import { TableHeads } from "@/components/table-view";
import { SecretDialog } from "@/components/secret-dialog";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Table, TableBody, TableCell, TableRow } from "@/components/ui/table";
import type { Page } from "@shared/pages";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { ErrorLine } from "@/components/form-dialog";

const failed = (title: string) => (err: unknown) => toastFailure(title, err);
const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "—");

/** Settings → Webhooks: endpoints, their signing secrets and their recent deliveries. */
export function WebhooksCard() {
  const client = useQueryClient();
  // Polled like the deliveries: an endpoint the server turns off (failing for 3 days) shows it while the page is open.
  const endpoints = useQuery({ queryKey: queryKeys.webhooks, queryFn: () => apiList<WebhookEndpoint>("/api/webhooks"), refetchInterval: 5000 });
  const [secret, setSecret] = useState<string | null>(null);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<WebhookEventType[]>(["call.ended"]);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.webhooks });

  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<WebhookWithSecret>("/api/webhooks", { method: "POST", body }),
    onSuccess: (created) => {
      setSecret(created.secret);
      setUrl("");
      setDescription("");
      toast.success(WEBHOOK_MESSAGES.created);
      void refresh();
    },
  });

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = webhookInputSchema.safeParse({ url, events, description });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? WEBHOOK_MESSAGES.invalidUrl);
      return;
    }
    setError(null);
    create.mutate({ url, events, description }, { onError: (err) => setError(err instanceof Error ? err.message : String(err)) });
  };

  return (
    <Card data-testid="webhooks-card">
      <CardHeader>
        <CardTitle>Webhooks</CardTitle>
        <CardDescription>
          Switchboard POSTs call events to your endpoints, signed the Standard Webhooks way (headers webhook-id, webhook-timestamp,
          webhook-signature). Failed deliveries are retried for about a day.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        <form onSubmit={submit} noValidate className="grid gap-3" aria-label="Add webhook endpoint">
          <Input aria-label="Endpoint URL" placeholder="https://example.com/webhooks/switchboard" value={url} onChange={(e) => setUrl(e.target.value)} aria-invalid={error !== null} />
          <Input aria-label="Description" placeholder="Description (optional)" value={description} onChange={(e) => setDescription(e.target.value)} />
          <fieldset className="grid gap-2 text-sm">
            <legend className="mb-1 font-medium">Events</legend>
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="flex items-center gap-2">
                <Checkbox
                  checked={events.includes(type)}
                  onCheckedChange={(checked) => setEvents(checked === true ? [...events, type] : events.filter((t) => t !== type))}
                />
                <code>{type}</code>
                <span className="text-muted-foreground">{WEBHOOK_EVENT_DESCRIPTIONS[type]}</span>
              </label>
            ))}
          </fieldset>
          <ErrorLine message={error} />
          <div>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? "Adding..." : "Add endpoint"}
            </Button>
          </div>
        </form>
        {endpoints.data?.length === 0 && <p className="text-sm text-muted-foreground">No endpoints yet.</p>}
        {endpoints.data?.map((endpoint) => <EndpointRow key={endpoint.id} endpoint={endpoint} onSecret={setSecret} onChanged={refresh} />)}
      </CardContent>
      <SecretDialog
        title="Signing secret"
        description={WEBHOOK_MESSAGES.secretShownOnce}
        secret={secret}
        onClose={() => setSecret(null)}
      />
    </Card>
  );
}

function EndpointRow(props: { endpoint: WebhookEndpoint; onSecret: (secret: string) => void; onChanged: () => void }) {
  const { endpoint } = props;
  const client = useQueryClient();
  const deliveriesKey = queryKeys.webhookDeliveries(endpoint.id);
  const deliveries = useQuery({ queryKey: deliveriesKey, queryFn: () => api<Page<WebhookDelivery>>(`/api/webhooks/${endpoint.id}/deliveries`), refetchInterval: 5000 });
  const refreshDeliveries = () => client.invalidateQueries({ queryKey: deliveriesKey });
  const call = (path: string, method = "POST", body?: Record<string, unknown>) => api<unknown>(`/api/webhooks/${path}`, { method, body });

  // The new secret is in this answer only: shown once, in the dialog that follows.
  const rotate = async () => {
    try {
      const rotated = (await call(`${endpoint.id}/rotate`)) as WebhookWithSecret;
      toast.success(WEBHOOK_MESSAGES.rotated);
      props.onSecret(rotated.secret);
    } catch (err) {
      failed("Failed to rotate the signing secret")(err);
    }
  };

  return (
    <section className="grid gap-3 rounded-lg border p-4" data-testid="webhook-endpoint" aria-label={endpoint.url}>
      <div className="flex flex-wrap items-center gap-2">
        <code className="min-w-0 flex-1 break-all text-sm">{endpoint.url}</code>
        <label className="flex items-center gap-2 text-sm">
          <Checkbox
            checked={endpoint.enabled}
            onCheckedChange={(checked) => void call(endpoint.id, "PATCH", { enabled: checked === true }).then(props.onChanged, failed("Failed to update the endpoint"))}
          />
          Enabled
        </label>
      </div>
      {endpoint.description && <p className="text-sm text-muted-foreground">{endpoint.description}</p>}
      <p className="text-sm">
        Events: {endpoint.events.map((e) => <code key={e} className="mr-2">{e}</code>)}
      </p>
      {endpoint.disabled_reason && (
        <p role="status" className="text-sm text-destructive">
          {endpoint.disabled_reason}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        <Button size="sm" variant="outline" onClick={() => void rotate()}>
          Rotate secret
        </Button>
        <Button
          size="sm"
          variant="outline"
          onClick={() =>
            void call(`${endpoint.id}/test`).then(() => {
              toast.success(WEBHOOK_MESSAGES.testSent);
              void refreshDeliveries();
            }, failed("Failed to send the test event"))
          }
        >
          Send test event
        </Button>
        <Button
          size="sm"
          variant="destructive"
          onClick={() =>
            void call(endpoint.id, "DELETE").then(() => {
              toast.success(WEBHOOK_MESSAGES.deleted);
              props.onChanged();
            }, failed("Failed to delete the endpoint"))
          }
        >
          Delete
        </Button>
      </div>
      {deliveries.data && deliveries.data.data.length > 0 && (
        <Table aria-label="Recent deliveries">
          <TableHeads labels={["Event", "Status", "Attempts", "Last response", "Last error", "Next retry"]} actions />
          <TableBody>
            {deliveries.data.data.map((d) => (
              <TableRow key={d.id}>
                <TableCell>
                  <code>{d.event_type}</code>
                  <div className="text-xs text-muted-foreground">{when(d.created_at)}</div>
                </TableCell>
                <TableCell>
                  <Badge variant={d.status === "failed" ? "destructive" : d.status === "delivered" ? "success" : "warning"}>{d.status}</Badge>
                </TableCell>
                <TableCell>{d.attempts}</TableCell>
                <TableCell>{d.last_status_code ?? "—"}</TableCell>
                <TableCell className="max-w-64 whitespace-normal break-words text-xs text-muted-foreground">{d.last_error ?? "—"}</TableCell>
                <TableCell>{when(d.next_attempt_at)}</TableCell>
                <TableCell>
                  <Button
                    size="sm"
                    variant="ghost"
                    onClick={() =>
                      void call(`deliveries/${d.id}/resend`).then(() => {
                        toast.success(WEBHOOK_MESSAGES.resent);
                        void refreshDeliveries();
                      }, failed("Failed to resend the delivery"))
                    }
                  >
                    Resend
                  </Button>
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </section>
  );
}
