import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { Trash2 } from "lucide-react";
import { useState } from "react";
import { DNC_PAGE_TEXTS as T, DNC_TEXTS, MAX_DNC_BATCH, OUTBOUND_TEXTS, e164Schema, type DncPage } from "@shared/outbound";
import { ActionsHead } from "@/components/table-view";
import { Button } from "@/components/ui/button";
import { NextPageButton } from "@/components/next-page-button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { Textarea } from "@/components/ui/textarea";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useCan } from "@/lib/use-membership";
import { ErrorLine } from "@/components/form-dialog";

const PAGE = 100;
const phoneSchema = e164Schema(DNC_TEXTS.phoneInvalid);
const splitNumbers = (text: string) => text.split(/[\n,;]+/).map((p) => p.trim()).filter(Boolean);

/** The do-not-call list: everyone reads it; builders add (typed or from a file) and remove numbers. */
export function DoNotCallCard() {
  const build = useCan("build");
  const client = useQueryClient();
  const list = useInfiniteQuery({
    queryKey: queryKeys.doNotCall,
    queryFn: ({ pageParam }) => api<DncPage>(`/api/dnc?limit=${PAGE}${pageParam ? `&cursor=${encodeURIComponent(pageParam)}` : ""}`),
    initialPageParam: "",
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
  const refresh = () => void client.invalidateQueries({ queryKey: queryKeys.doNotCall });
  const add = useMutation({ mutationFn: (phones: string[]) => api<{ added: number }>("/api/dnc", { method: "POST", body: { phones } }), onSuccess: refresh });
  const remove = useMutation({ mutationFn: (phone: string) => api<null>(`/api/dnc/${encodeURIComponent(phone)}`, { method: "DELETE" }), onSuccess: refresh });
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const typed = splitNumbers(text);
    const bad = typed.find((p) => !phoneSchema.safeParse(p).success);
    if (bad !== undefined || typed.length > MAX_DNC_BATCH) {
      setError(bad !== undefined ? `${bad}: ${DNC_TEXTS.phoneInvalid}` : DNC_TEXTS.tooMany);
      return;
    }
    setError(null);
    try {
      const { added } = await add.mutateAsync(typed.map((p) => phoneSchema.parse(p)));
      toast.success(T.added(added));
      setText("");
    } catch (err) {
      toastFailure(T.addFailed, err);
    }
  };
  const onRemove = async (phone: string) => {
    try {
      await remove.mutateAsync(phone);
      toast.success(OUTBOUND_TEXTS.dncRemoved);
    } catch (err) {
      toastFailure(T.removeFailed, err);
    }
  };

  const entries = list.data?.pages.flatMap((p) => p.data) ?? [];
  const total = list.data?.pages[0]?.total ?? 0;
  return (
    <Card data-testid="dnc-card">
      <CardHeader>
        <CardTitle>{T.title}</CardTitle>
        <CardDescription>
          {T.description}
          {!build && ` ${T.readOnly}`}
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        {build && (
          <form onSubmit={(e) => void submit(e)} noValidate className="grid gap-3">
            <FormField label={T.addLabel} description={T.addHint} error={error ?? undefined}>
              <Textarea rows={3} value={text} onChange={(e) => setText(e.target.value)} placeholder="+442071234567" />
            </FormField>
            <div className="flex flex-wrap items-center gap-2">
              <Input
                type="file"
                accept=".csv,.txt,text/plain,text/csv"
                aria-label="Numbers from a file"
                className="w-auto"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void file.text().then((t) => setText(splitNumbers(t).filter((p) => p.toLowerCase() !== "phone").join("\n")));
                }}
              />
              <Button type="submit" disabled={add.isPending || text.trim() === ""}>
                {T.add}
              </Button>
            </div>
          </form>
        )}
        <p className="text-sm text-muted-foreground">{list.isPending ? "Loading..." : total === 0 ? T.empty : T.total(total)}</p>
        <ErrorLine message={list.error?.message} />
        {entries.length > 0 && (
          <div className="max-h-80 overflow-y-auto rounded-md border">
            <Table>
              <TableHeader>
                <TableRow>
                  <TableHead>Number</TableHead>
                  <TableHead>Added</TableHead>
                  {build && (
                    <ActionsHead className="w-12" />
                  )}
                </TableRow>
              </TableHeader>
              <TableBody>
                {entries.map((entry) => (
                  <TableRow key={entry.phone} data-testid="dnc-row">
                    <TableCell className="font-mono text-sm">{entry.phone}</TableCell>
                    <TableCell className="text-sm text-muted-foreground">{new Date(entry.created_at).toLocaleString()}</TableCell>
                    {build && (
                      <TableCell>
                        <Button variant="ghost" size="icon" aria-label={`Remove ${entry.phone}`} disabled={remove.isPending} onClick={() => void onRemove(entry.phone)}>
                          <Trash2 />
                        </Button>
                      </TableCell>
                    )}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        )}
        <NextPageButton pages={list} className="w-fit" label="Load more" />
      </CardContent>
    </Card>
  );
}
