import { DiallingNotice } from "@/components/reachability-notice";
import { ArrowLeft, Download } from "lucide-react";
import { Link, useParams } from "react-router";
import { formatSuccess } from "@shared/analysis";
import {
  CAMPAIGN_COUNT_LABELS,
  CAMPAIGN_PAGE_TEXTS as T,
  CONTACT_OUTCOME_LABELS,
  CONTACT_STATE_LABELS,
  WEEKDAY_LABELS,
  campaignProgress,
  type Campaign,
  type CampaignCounts,
  type CampaignSuccess,
} from "@shared/campaigns";
import { LoadError } from "@/components/page-states";
import { Button } from "@/components/ui/button";
import { NextPageButton } from "@/components/next-page-button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { Spinner } from "@/components/ui/spinner";
import { TableHeads } from "@/components/table-view";
import { Table, TableBody, TableCell, TableRow } from "@/components/ui/table";
import { ApiError } from "@/lib/api";
import { useCan } from "@/lib/use-membership";
import { CampaignActions } from "./campaign-actions";
import { CampaignStatusBadge, shortDateTime } from "./campaign-format";
import { useAssistantNames, useCampaign, useCampaignContacts, usePhoneNumberOptions } from "./use-campaigns";

const COUNT_KEYS = Object.keys(CAMPAIGN_COUNT_LABELS) as (keyof CampaignCounts)[];

const windowText = (w: Campaign["schedule"]["windows"][number]) => `${w.days.map((d) => WEEKDAY_LABELS[d - 1]).join(", ")} ${w.start}–${w.end}`;

/** One campaign: its status and actions, counts by state and outcome, and its contacts with their calls. */
export function CampaignPage() {
  const { id = "" } = useParams();
  const campaign = useCampaign(id);
  const contacts = useCampaignContacts(id, campaign.data ? JSON.stringify(campaign.data.counts) : null);
  const assistants = useAssistantNames();
  const numbers = usePhoneNumberOptions();
  const build = useCan("build");
  const exportable = useCan("supervise");

  const back = (
    <Link to="/campaigns" className="inline-flex items-center gap-1 text-sm text-muted-foreground hover:underline">
      <ArrowLeft className="size-4" />
      {T.back}
    </Link>
  );
  if (campaign.isPending) return <Spinner className="mx-auto my-16" />;
  if (campaign.error) {
    const missing = campaign.error instanceof ApiError && campaign.error.status === 404;
    return (
      <section className="mx-auto grid w-full max-w-6xl gap-4">
        {back}
        <LoadError what="campaign" message={missing ? T.notFound : campaign.error.message} onRetry={() => void campaign.refetch()} />
      </section>
    );
  }
  const c = campaign.data;
  const { total, done } = campaignProgress(c.counts);
  const rows = contacts.data?.pages.flatMap((p) => p.data) ?? [];

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6 [&>*]:min-w-0">
      {back}
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="grid gap-1">
          <div className="flex items-center gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">{c.name}</h1>
            <CampaignStatusBadge status={c.status} />
          </div>
          <p className="text-sm text-muted-foreground">
            {assistants.data?.find((a) => a.id === c.assistant_id)?.name ?? "—"} · from{" "}
            <span className="font-mono">{numbers.data?.find((n) => n.id === c.phone_number_id)?.phone_number ?? "—"}</span> · created {shortDateTime(c.created_at)}
          </p>
          {c.waiting_reason && <p className="text-sm text-amber-700">{c.waiting_reason}</p>}
        </div>
        {build && <CampaignActions campaign={c} />}
      </div>
      {c.status !== "completed" && c.status !== "cancelled" && <DiallingNotice />}

      <Card>
        <CardHeader>
          <CardTitle>
            Progress: {done.toLocaleString("en-US")} of {total.toLocaleString("en-US")} contacts done
          </CardTitle>
        </CardHeader>
        <CardContent>
          <dl className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" data-testid="campaign-counts">
            {COUNT_KEYS.map((key) => (
              <div key={key} className="rounded-md border p-3">
                <dt className="text-xs text-muted-foreground">{CAMPAIGN_COUNT_LABELS[key]}</dt>
                <dd className="text-xl font-semibold tabular-nums" data-testid={`count-${key}`}>
                  {c.counts[key].toLocaleString("en-US")}
                </dd>
              </div>
            ))}
          </dl>
          <p className="mt-4 text-sm text-muted-foreground">
            {c.schedule.timezone}: {c.schedule.windows.map(windowText).join("; ")}
            {c.schedule.start_at && ` · not before ${shortDateTime(c.schedule.start_at)}`} · at most {c.max_concurrent_calls} at once
            {c.calls_per_minute && `, ${c.calls_per_minute} a minute`} · {c.retry.max_attempts} {c.retry.max_attempts === 1 ? "attempt" : "attempts"}
            {c.retry.on.length > 0 && `, retried after ${c.retry.delay_seconds}s on ${c.retry.on.map((o) => CONTACT_OUTCOME_LABELS[o].toLowerCase()).join(", ")}`}
          </p>
        </CardContent>
      </Card>

      <SuccessByOutcome success={c.success_by_outcome} />

      <div className="grid gap-3">
        <div className="flex items-center justify-between">
          <h2 className="text-lg font-semibold">Contacts</h2>
          {/* An export, as the calls' is: supervisors and up. */}
          {exportable && (
            <Button variant="outline" size="sm" asChild>
              <a href={`/api/campaigns/${encodeURIComponent(c.id)}/contacts.csv`} download>
                <Download />
                {T.downloadCsv}
              </a>
            </Button>
          )}
        </div>
        {contacts.error ? (
          <LoadError what="contacts" message={contacts.error.message} onRetry={() => void contacts.refetch()} />
        ) : (
          <div className="overflow-x-auto rounded-lg border">
            <Table>
              <TableHeads labels={["Row", "Phone", "Variables", "State", "Attempts", "Last outcome", "Call"]} />
              <TableBody>
                {rows.map((r) => (
                  <TableRow key={r.row} data-testid="contact-row">
                    <TableCell>{r.row}</TableCell>
                    <TableCell className="font-mono text-sm">{r.phone}</TableCell>
                    <TableCell className="max-w-64 truncate text-sm text-muted-foreground" title={Object.entries(r.variables).map(([k, v]) => `${k}=${v}`).join(", ")}>
                      {Object.entries(r.variables)
                        .map(([k, v]) => `${k}=${v}`)
                        .join(", ")}
                    </TableCell>
                    <TableCell>{CONTACT_STATE_LABELS[r.state]}</TableCell>
                    <TableCell>{r.attempts}</TableCell>
                    <TableCell data-testid="contact-outcome">{r.last_outcome ? CONTACT_OUTCOME_LABELS[r.last_outcome] : "—"}</TableCell>
                    <TableCell>
                      {r.call_id ? (
                        <Link to={`/calls?call=${r.call_id}`} className="text-sm text-primary hover:underline">
                          View call
                        </Link>
                      ) : (
                        "—"
                      )}
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </div>
        )}
        <NextPageButton pages={contacts} className="w-fit" label={T.loadMore} />
      </div>
    </section>
  );
}

const percent = (n: number, of: number) => `${Math.round((n / of) * 100)}%`;

/** The analysis's success values of each outcome's scored calls, with their shares. */
function SuccessByOutcome({ success }: { success: CampaignSuccess }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>
          <h2>{T.successTitle}</h2>
        </CardTitle>
      </CardHeader>
      <CardContent>
        {success.length === 0 ? (
          <p className="text-sm text-muted-foreground">{T.successEmpty}</p>
        ) : (
          <dl className="grid gap-3 sm:grid-cols-2" data-testid="campaign-success">
            {success.map((o) => (
              <div key={o.outcome} className="rounded-md border p-3" data-testid={`success-${o.outcome}`}>
                <dt className="text-sm font-medium">
                  {CONTACT_OUTCOME_LABELS[o.outcome]} <span className="font-normal text-muted-foreground">· {T.analysed(o.analysed)}</span>
                </dt>
                <dd className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm tabular-nums">
                  {o.values.map((v) => (
                    <span key={String(v.value)}>
                      {formatSuccess(v.value)}: {v.count.toLocaleString("en-US")} ({percent(v.count, o.analysed)})
                    </span>
                  ))}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </CardContent>
    </Card>
  );
}
