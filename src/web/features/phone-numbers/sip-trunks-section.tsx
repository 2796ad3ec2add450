import { Copy, Pencil, Plus, Server, Trash2 } from "lucide-react";
import { useState } from "react";
import { SIP_TRUNK_MESSAGES as M, sipAddressFor, type SipListener, type SipTrunk } from "@shared/sip-trunks";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { EmptyState, LoadError } from "@/components/page-states";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { toast } from "@/components/ui/sonner";
import { Spinner } from "@/components/ui/spinner";
import { useCan } from "@/lib/use-membership";
import { configExamples } from "./sip-config-examples";
import { SipTrunkDialog, type TrunkDialogState } from "./sip-trunk-dialog";
import { useDeleteSipTrunk, useSaveSipTrunk, useSipListener, useSipTrunks } from "./use-sip-trunks";

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : "never");

async function copy(text: string) {
  await navigator.clipboard.writeText(text);
  toast.success("Copied");
}

/** Phone Numbers → SIP trunks: the organisation's trunks and PBXs, where to point them, and their state. */
export function SipTrunksSection({ enabled }: { enabled: boolean }) {
  const trunks = useSipTrunks(enabled);
  const listener = useSipListener(enabled);
  const save = useSaveSipTrunk();
  const remove = useDeleteSipTrunk();
  const build = useCan("build");
  const [dialog, setDialog] = useState<TrunkDialogState>({ open: false });
  const [deleting, setDeleting] = useState<SipTrunk | null>(null);

  const onSubmit = async (body: Record<string, unknown>, editing: SipTrunk | null) => {
    await save.mutateAsync({ id: editing?.id ?? null, body });
    toast.success(editing ? M.updated : M.created);
    setDialog({ open: false });
  };

  let body;
  if (trunks.isPending) body = <Spinner className="mx-auto size-6 text-muted-foreground" label="Loading SIP trunks" />;
  else if (trunks.isError) body = <LoadError what="SIP trunks" message={trunks.error.message} onRetry={() => void trunks.refetch()} />;
  else if (trunks.data.length === 0) {
    body = (
      <EmptyState icon={Server} title="No SIP trunks yet" action={null}>
        Point a carrier's SIP trunk or your PBX (Asterisk, FreePBX, 3CX, FreeSWITCH) at Switchboard, then add its numbers.
      </EmptyState>
    );
  } else {
    body = (
      <div className="grid min-w-0 gap-4">
        {trunks.data.map((trunk) => (
          <TrunkCard key={trunk.id} trunk={trunk} listener={listener.data} canEdit={build} onEdit={() => setDialog({ open: true, editing: trunk })} onDelete={() => setDeleting(trunk)} />
        ))}
      </div>
    );
  }

  return (
    <div className="grid min-w-0 gap-4">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <p className="text-sm text-muted-foreground">Calls from your own carrier or PBX over SIP, with no Twilio in between.</p>
        {build && (
          <Button onClick={() => setDialog({ open: true, editing: null })}>
            <Plus />
            Add SIP trunk
          </Button>
        )}
      </div>
      {listener.data && !listener.data.enabled && (
        <p role="status" className="rounded-lg border bg-muted/40 p-3 text-sm">
          {M.listenerOff}
        </p>
      )}
      {body}
      <SipTrunkDialog state={dialog} onOpenChange={(open) => !open && setDialog({ open: false })} onSubmit={onSubmit} />
      <ConfirmDeleteDialog
        item={deleting}
        title="Delete this SIP trunk?"
        consequence="will be deleted. Calls from it will no longer reach your assistants."
        onOpenChange={(open) => !open && setDeleting(null)}
        onConfirm={(trunk) => remove.mutateAsync(trunk.id)}
        toasts={{ deleted: M.deleted, failed: "Error deleting SIP trunk" }}
      />
    </div>
  );
}

function TrunkCard({ trunk, listener, canEdit, onEdit, onDelete }: { trunk: SipTrunk; listener: SipListener | undefined; canEdit: boolean; onEdit: () => void; onDelete: () => void }) {
  const [example, setExample] = useState(0);
  const examples = listener ? configExamples(trunk, listener) : [];
  const shown = examples[example];
  const numbers = trunk.numbers.length > 0 ? trunk.numbers.map((n) => n.phone_number) : ["<number>"];
  return (
    <Card data-testid="sip-trunk-card" className="min-w-0">
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-2">
        <div className="grid min-w-0 gap-1 break-words">
          <CardTitle>{trunk.name}</CardTitle>
          <CardDescription>
            {trunk.inbound_addresses.length > 0 ? `From ${trunk.inbound_addresses.join(", ")}` : "No source addresses"}
            {trunk.inbound_username ? ` · digest user ${trunk.inbound_username}` : ""}
            {trunk.outbound_uri ? ` · out via ${trunk.outbound_uri}` : ""}
          </CardDescription>
        </div>
        {canEdit && (
          <div className="flex gap-1">
            <Button variant="ghost" size="icon-sm" aria-label={`Edit ${trunk.name}`} onClick={onEdit}>
              <Pencil />
            </Button>
            <Button variant="ghost" size="icon-sm" aria-label={`Delete ${trunk.name}`} onClick={onDelete}>
              <Trash2 />
            </Button>
          </div>
        )}
      </CardHeader>
      <CardContent className="grid min-w-0 gap-4 text-sm">
        <dl className="grid gap-x-6 gap-y-1 sm:grid-cols-3">
          <div>
            <dt className="text-muted-foreground">Last OPTIONS seen</dt>
            <dd>{when(trunk.last_options_at)}</dd>
          </div>
          <div>
            <dt className="text-muted-foreground">Registration</dt>
            <dd>
              <Badge variant={trunk.registration_state === "registered" ? "success" : trunk.registration_state === "failed" ? "destructive" : "muted"} className="capitalize">
                {trunk.register ? trunk.registration_state : "not used"}
              </Badge>
              {trunk.register && trunk.registration_state_at && <span className="ml-2 text-muted-foreground">{when(trunk.registration_state_at)}</span>}
            </dd>
          </div>
          <div>
            <dt className="text-muted-foreground">Last error</dt>
            <dd className="break-words">{trunk.last_error ? `${trunk.last_error} (${when(trunk.last_error_at)})` : "none"}</dd>
          </div>
        </dl>
        {listener && (
          <div className="grid min-w-0 gap-1">
            <p className="font-medium">Point the trunk at</p>
            {numbers.map((n) => {
              const address = sipAddressFor(n, listener, trunk.transport);
              return (
                <div key={n} className="flex items-center gap-2">
                  <code data-testid="sip-address" className="min-w-0 flex-1 rounded bg-muted px-2 py-1 font-mono text-xs break-all">
                    {address}
                  </code>
                  <Button variant="ghost" size="icon-sm" aria-label={`Copy ${address}`} onClick={() => void copy(address)}>
                    <Copy />
                  </Button>
                </div>
              );
            })}
          </div>
        )}
        {shown && (
          <div className="grid min-w-0 gap-2">
            <div className="flex flex-wrap gap-1" role="group" aria-label="Example configuration">
              {examples.map((e, i) => (
                <Button key={e.id} size="sm" variant={i === example ? "secondary" : "ghost"} aria-pressed={i === example} onClick={() => setExample(i)}>
                  {e.title}
                </Button>
              ))}
            </div>
            <div className="relative min-w-0">
              <pre data-testid="sip-config-example" className="max-h-72 max-w-full overflow-auto rounded bg-muted p-3 font-mono text-xs whitespace-pre">
                {shown.text}
              </pre>
              <Button variant="outline" size="sm" className="absolute top-2 right-2" onClick={() => void copy(shown.text)}>
                <Copy />
                Copy
              </Button>
            </div>
          </div>
        )}
      </CardContent>
    </Card>
  );
}
