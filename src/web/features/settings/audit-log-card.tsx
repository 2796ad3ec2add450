import { useInfiniteQuery } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";
import { AUDIT_ACTION_LABELS, AUDIT_ACTIONS, AUDIT_MESSAGES, type AuditEntry, type AuditPage } from "@shared/audit";
import { Button } from "@/components/ui/button";
import { NextPageButton } from "@/components/next-page-button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { OptionSelect } from "@/components/option-select";
import { TableHeads } from "@/components/table-view";
import { Table, TableBody, TableCell, TableRow } from "@/components/ui/table";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useTeamMembers } from "@/lib/use-membership";

const ALL = "all";
const ACTION_OPTIONS = [{ value: ALL, label: "All actions" }, ...AUDIT_ACTIONS.map((a) => ({ value: a, label: AUDIT_ACTION_LABELS[a] }))];

/** A picked day as the instant it starts in the browser's time zone (the server reads bare dates as UTC). */
const startOfDay = (day: string, plusDays = 0) => {
  const d = new Date(`${day}T00:00:00`);
  d.setDate(d.getDate() + plusDays);
  return d.toISOString();
};

/** The target as one line: its name when it has one, else its id; a member's new role beside it. */
function target(entry: AuditEntry): string {
  const what = entry.target_name ?? entry.target_id ?? "";
  const role = typeof entry.details.role === "string" ? ` → ${entry.details.role}` : "";
  return `${what}${role}`;
}

/** One filter above the log: its label over the control that `id` names. */
function Filter({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <Label htmlFor={id}>{label}</Label>
      {children}
    </div>
  );
}

/** Settings → Audit log (admins and owners): who did what, when, from which address; filters and CSV. */
export function AuditLogCard() {
  const [actor, setActor] = useState(ALL);
  const [action, setAction] = useState(ALL);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const filters: Record<string, string> = {
    ...(actor !== ALL ? { actor } : {}),
    ...(action !== ALL ? { action } : {}),
    ...(from ? { from: startOfDay(from) } : {}),
    // Through the end of the chosen day: the server's `to` is exclusive for a time.
    ...(to ? { to: startOfDay(to, 1) } : {}),
  };
  const query = new URLSearchParams(filters).toString();
  const members = useTeamMembers();
  const log = useInfiniteQuery({
    queryKey: queryKeys.auditLog(filters),
    initialPageParam: null as string | null,
    queryFn: ({ pageParam }) => api<AuditPage>(`/api/audit-log?${new URLSearchParams({ ...filters, ...(pageParam ? { cursor: pageParam } : {}) })}`),
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 0,
  });
  const entries = log.data?.pages.flatMap((p) => p.data) ?? [];
  const filtered = Object.keys(filters).length > 0;

  return (
    <Card data-testid="audit-log-card">
      <CardHeader>
        <CardTitle>Audit log</CardTitle>
        <CardDescription>
          Who did what, when, from which address. Entries cannot be changed or deleted; they are kept for a year, or as long as calls are kept
          when that is longer.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="grid gap-3 sm:grid-cols-2">
          <Filter id="audit-person" label="Person">
            <OptionSelect
              id="audit-person"
              className="w-full"
              value={actor}
              onValueChange={setActor}
              options={[{ value: ALL, label: "Everyone" }, ...(members.data ?? []).map((m) => ({ value: m.user_id, label: m.name || m.email }))]}
            />
          </Filter>
          <Filter id="audit-action" label="Action">
            <OptionSelect id="audit-action" className="w-full" value={action} onValueChange={setAction} options={ACTION_OPTIONS} />
          </Filter>
          <Filter id="audit-from" label="From">
            <Input id="audit-from" type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />
          </Filter>
          <Filter id="audit-to" label="To">
            <Input id="audit-to" type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
          </Filter>
        </div>
        <div className="flex justify-end">
          <Button asChild variant="outline" size="sm">
            <a href={`/api/audit-log.csv${query ? `?${query}` : ""}`} download>
              Export CSV
            </a>
          </Button>
        </div>
        {log.isError ? (
          <p className="text-sm text-destructive">{log.error instanceof Error ? log.error.message : "The audit log could not be loaded."}</p>
        ) : log.isPending ? (
          <p className="text-sm text-muted-foreground">Loading…</p>
        ) : entries.length === 0 ? (
          <p className="text-sm text-muted-foreground">{filtered ? AUDIT_MESSAGES.emptyFiltered : AUDIT_MESSAGES.empty}</p>
        ) : (
          <Table>
            <TableHeads labels={["Time", "Person", "Action", "Target", "Address"]} />
            <TableBody>
              {entries.map((e) => (
                <TableRow key={e.id}>
                  <TableCell className="whitespace-nowrap">{new Date(e.created_at).toLocaleString()}</TableCell>
                  <TableCell>
                    {e.actor_name}
                    {e.actor_api_key_id && (
                      <span className="block font-mono text-xs text-muted-foreground" title="The API key that acted for this person">
                        key {e.actor_api_key_id}
                      </span>
                    )}
                  </TableCell>
                  <TableCell>{e.action_label}</TableCell>
                  <TableCell className="max-w-56 truncate" title={target(e)}>
                    {target(e)}
                  </TableCell>
                  <TableCell className="font-mono text-xs">{e.ip ?? "—"}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        )}
        <NextPageButton pages={log} size="sm" label="Show older" busyLabel="Loading…" />
      </CardContent>
    </Card>
  );
}
