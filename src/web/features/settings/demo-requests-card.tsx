import { useQuery } from "@tanstack/react-query";
import { CALL_VOLUME_OPTIONS, type DemoRequestListItem } from "@shared/demo-requests";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { Page } from "@shared/pages";
import { api, ApiError, listPagePath } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const volumeLabel = (value: string) => CALL_VOLUME_OPTIONS.find((o) => o.value === value)?.label ?? value;

/**
 * The Request a demo form's submissions, for the instance's owner (the server's first account):
 * the server answers 404 to anyone else, and then the card is not shown at all.
 */
export function DemoRequestsCard() {
  const requests = useQuery({
    queryKey: queryKeys.demoRequests,
    queryFn: async () => {
      try {
        // The newest page (200): the card shows what came in lately, not the whole history.
        return (await api<Page<DemoRequestListItem>>(listPagePath("/api/demo-requests"))).data;
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return null;
        throw err;
      }
    },
  });
  if (!requests.data) return null;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Demo requests</CardTitle>
        <CardDescription>What visitors sent through the Request a demo form, newest first. Only you, the owner of this server, see them.</CardDescription>
      </CardHeader>
      <CardContent>
        {requests.data.length === 0 ? (
          <p className="text-sm text-muted-foreground">No demo requests yet.</p>
        ) : (
          <ul className="grid gap-3" aria-label="Demo requests">
            {requests.data.map((r) => (
              <li key={r.id} className="grid gap-1 rounded-lg border p-3 text-sm" data-testid="demo-request">
                <div className="flex flex-wrap items-baseline justify-between gap-2">
                  <span className="font-medium">
                    {r.first_name} {r.last_name} · {r.company}
                  </span>
                  <time className="text-xs text-muted-foreground" dateTime={r.created_at}>
                    {new Date(r.created_at).toLocaleString()}
                  </time>
                </div>
                <span className="text-muted-foreground">
                  {r.role} · {r.location} · {volumeLabel(r.yearly_call_volume)}
                </span>
                <span className="break-all">
                  <a className="text-primary underline underline-offset-4" href={`mailto:${r.work_email}`}>
                    {r.work_email}
                  </a>{" "}
                  · <a href={`tel:${r.phone_number.replace(/[^\d+]/g, "")}`}>{r.phone_number}</a>
                </span>
                {r.comments && <p className="whitespace-pre-wrap">{r.comments}</p>}
              </li>
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
