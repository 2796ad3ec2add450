import { Megaphone } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { CAMPAIGN_PAGE_TEXTS as T, campaignProgress, type Campaign } from "@shared/campaigns";
import { EmptyState, ListPageHeader, LoadError, TableSkeleton } from "@/components/page-states";
import { byText, NoMatchRow, SortableHead, TableSearch, useTableView } from "@/components/table-view";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { useCan } from "@/lib/use-membership";
import { CampaignSheet } from "./campaign-sheet";
import { CampaignStatusBadge, shortDateTime } from "./campaign-format";
import { useAssistantNames, useCampaigns, usePhoneNumberOptions } from "./use-campaigns";

const SORTS = {
  name: byText((c: Campaign) => c.name),
  status: byText((c: Campaign) => c.status),
  created: byText((c: Campaign) => c.created_at),
};
const nameOf = (c: Campaign) => c.name;

/** Campaigns: the list; builders and up create them (spec: "Campaigns"). */
export function CampaignsPage() {
  const campaigns = useCampaigns();
  const assistants = useAssistantNames();
  const numbers = usePhoneNumberOptions();
  const build = useCan("build");
  const [creating, setCreating] = useState(false);
  const view = useTableView(campaigns.data ?? [], nameOf, SORTS);
  const assistantName = (id: string | null) => assistants.data?.find((a) => a.id === id)?.name ?? "—";
  const numberOf = (id: string | null) => numbers.data?.find((n) => n.id === id)?.phone_number ?? "—";

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6 [&>*]:min-w-0">
      <ListPageHeader title={T.title} description={build ? T.description : `${T.description} ${T.readOnly}`} onCreate={build ? () => setCreating(true) : undefined} />
      {campaigns.isPending ? (
        <TableSkeleton label="Loading campaigns" headerWidths={[24, 16, 20, 16, 16, 16]} cells={<Skeleton className="h-4 w-full" />} />
      ) : campaigns.error ? (
        <LoadError what="campaigns" message={campaigns.error.message} onRetry={() => void campaigns.refetch()} />
      ) : campaigns.data.length === 0 ? (
        <EmptyState icon={Megaphone} title={T.empty} action={build ? <Button onClick={() => setCreating(true)}>{T.create}</Button> : null}>
          {T.emptyHint}
        </EmptyState>
      ) : (
        <div className="grid gap-3">
          <TableSearch value={view.query} onChange={view.setQuery} label="Search campaigns" />
          <div className="overflow-x-auto rounded-lg border">
            <Table>
              <TableHeader>
                <TableRow>
                  <SortableHead label="Name" column="name" sort={view.sort} onSort={view.toggleSort} />
                  <SortableHead label="Status" column="status" sort={view.sort} onSort={view.toggleSort} />
                  <TableHead>Assistant</TableHead>
                  <TableHead>Number</TableHead>
                  <TableHead>Progress</TableHead>
                  <SortableHead label="Created" column="created" sort={view.sort} onSort={view.toggleSort} />
                </TableRow>
              </TableHeader>
              <TableBody>
                {view.rows.length === 0 && <NoMatchRow what="campaigns" columns={6} query={view.query} />}
                {view.rows.map((c) => {
                  const { total, done } = campaignProgress(c.counts);
                  return (
                    <TableRow key={c.id} data-testid="campaign-row">
                      <TableCell className="font-medium">
                        <Link to={`/campaigns/${c.id}`} className="hover:underline">
                          {c.name}
                        </Link>
                      </TableCell>
                      <TableCell>
                        <CampaignStatusBadge status={c.status} title={c.waiting_reason} />
                      </TableCell>
                      <TableCell>{assistantName(c.assistant_id)}</TableCell>
                      <TableCell className="font-mono text-sm">{numberOf(c.phone_number_id)}</TableCell>
                      <TableCell className="text-sm" title={`${c.counts.completed} completed, ${c.counts.calling} calling, ${c.counts.pending} pending`}>
                        {done.toLocaleString("en-US")} / {total.toLocaleString("en-US")} done
                      </TableCell>
                      <TableCell className="text-sm text-muted-foreground">{shortDateTime(c.created_at)}</TableCell>
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </div>
        </div>
      )}
      {build && <CampaignSheet open={creating} onOpenChange={setCreating} />}
    </section>
  );
}
