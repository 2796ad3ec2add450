import { useState } from "react";
import { PROTOCOL_INFO, PROVIDER_KIND_LABELS, PROVIDER_KINDS, PROVIDER_PROTOCOLS, PROVIDER_TEXTS as T, providerInputSchema, type Provider, type ProviderKind } from "@shared/providers";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/sonner";
import { ActionTable } from "@/components/table-view";
import { TableCell } from "@/components/ui/table";
import { queryKeys } from "@/lib/query-keys";
import { useSettingsList } from "./use-settings-list";
import { ErrorLine } from "@/components/form-dialog";

const protocolsOf = (kind: ProviderKind) => PROVIDER_PROTOCOLS.filter((p) => PROTOCOL_INFO[p].kind === kind);
const empty = { name: "", kind: "transcriber" as ProviderKind, protocol: "deepgram" as string, base_url: "", api_key: "", unit_price: "" };

/** Settings → Providers: add a transcriber, language model or voice with its key; list; delete. */
export function ProvidersCard() {
  const [values, setValues] = useState(empty);
  const [error, setError] = useState<string | null>(null);
  const { list, create, remove } = useSettingsList<Provider>(queryKeys.providers, "/api/providers", {
    created: T.saved,
    removed: T.deleted,
    onCreated: () => setValues(empty),
    onCreateError: setError,
    onRemoveError: (err) => toast.error(err instanceof Error ? err.message : String(err)),
  });

  const submit = (event: React.FormEvent) => {
    event.preventDefault();
    // Empty: the list price; otherwise a number (a word left in it is refused with the schema's message).
    const price = values.unit_price.trim();
    const body = { ...values, base_url: values.base_url || null, unit_price: price === "" ? null : Number.isNaN(Number(price)) ? price : Number(price) };
    const parsed = providerInputSchema.safeParse(body);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message ?? T.add);
    setError(null);
    create.mutate(body);
  };

  const set = (key: keyof typeof empty) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) => setValues((v) => ({ ...v, [key]: e.target.value }));
  return (
    <Card data-testid="providers-card">
      <CardHeader>
        <CardTitle>{T.title}</CardTitle>
        <CardDescription>{T.description}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <form onSubmit={submit} noValidate className="grid gap-3 sm:grid-cols-2" aria-label={T.add}>
          <Input aria-label={T.name} placeholder={T.name} value={values.name} onChange={set("name")} />
          <select
            aria-label={T.kind}
            className="h-9 rounded-md border bg-background px-2 text-sm"
            value={values.kind}
            onChange={(e) => {
              const kind = e.target.value as ProviderKind;
              setValues((v) => ({ ...v, kind, protocol: protocolsOf(kind)[0]! }));
            }}
          >
            {PROVIDER_KINDS.map((k) => (
              <option key={k} value={k}>
                {PROVIDER_KIND_LABELS[k]}
              </option>
            ))}
          </select>
          <select aria-label={T.protocol} className="h-9 rounded-md border bg-background px-2 text-sm" value={values.protocol} onChange={set("protocol")}>
            {protocolsOf(values.kind).map((p) => (
              <option key={p} value={p}>
                {PROTOCOL_INFO[p].label}
              </option>
            ))}
          </select>
          <Input aria-label={T.baseUrl} placeholder={T.baseUrl} value={values.base_url} onChange={set("base_url")} />
          <Input aria-label={T.apiKey} placeholder={T.apiKey} type="password" autoComplete="off" value={values.api_key} onChange={set("api_key")} />
          <label className="grid gap-1 text-xs text-muted-foreground sm:col-span-2">
            {T.unitPrice}
            <Input aria-label={T.unitPrice} inputMode="decimal" placeholder={T.unitPriceUnit[values.kind]} value={values.unit_price} onChange={set("unit_price")} />
          </label>
          <Button type="submit" disabled={create.isPending}>
            {T.add}
          </Button>
        </form>
        <ErrorLine message={error} />
        {list.data && list.data.length === 0 && <p className="text-sm text-muted-foreground">{T.empty}</p>}
        {list.data && list.data.length > 0 && (
          <ActionTable
            label={T.title}
            heads={[T.name, T.kind, T.protocol, T.apiKey, T.priceColumn]}
            actions="empty"
            rows={list.data}
            cells={(p) => (
              <>
                <TableCell>{p.name}</TableCell>
                <TableCell>{PROVIDER_KIND_LABELS[p.kind]}</TableCell>
                <TableCell>
                  {PROTOCOL_INFO[p.protocol].label}
                  {p.base_url && <span className="block text-xs text-muted-foreground">{p.base_url}</span>}
                </TableCell>
                <TableCell>
                  <code>{p.api_key_hint}</code>
                </TableCell>
                <TableCell className="tabular-nums">{p.unit_price === null ? T.listPrice : `$${p.unit_price} ${T.unitPriceUnit[p.kind].replace(/^USD /, "")}`}</TableCell>
              </>
            )}
            action={(p) => (
              <Button size="sm" variant="ghost" aria-label={`${T.delete} ${p.name}`} onClick={() => void remove(p)}>
                {T.delete}
              </Button>
            )}
          />
        )}
      </CardContent>
    </Card>
  );
}
