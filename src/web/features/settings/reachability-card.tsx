import { CheckCircle2 } from "lucide-react";
import { useState } from "react";
import { REACHABILITY_TEXTS } from "@shared/reachability";
import { ReachabilityWarning, useReachability } from "@/components/reachability-notice";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";

/** Settings → Check reachability: what Twilio would be told to reach for a call, and whether it can. */
export function ReachabilityCard() {
  const [asked, setAsked] = useState(false);
  const reachability = useReachability(asked);
  const data = reachability.data;
  return (
    <Card>
      <CardHeader>
        <CardTitle>Phone call reachability</CardTitle>
        <CardDescription>Twilio delivers calls to this server at its PUBLIC_URL. Check what it would reach.</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-3 text-sm">
        <div>
          <Button variant="outline" onClick={() => (asked ? void reachability.refetch() : setAsked(true))} disabled={reachability.isFetching}>
            Check reachability
          </Button>
        </div>
        {data && (data.problem ? <ReachabilityWarning /> : <p className="flex items-center gap-2 text-emerald-700"><CheckCircle2 className="size-4" aria-hidden="true" />{REACHABILITY_TEXTS.ok}</p>)}
        {data && (
          <dl className="grid gap-2" data-testid="reachability-urls">
            <div>
              <dt className="text-xs text-muted-foreground">Voice webhook (POST)</dt>
              <dd className="font-mono text-xs break-all">{data.voice_url}</dd>
            </div>
            <div>
              <dt className="text-xs text-muted-foreground">Media stream</dt>
              <dd className="font-mono text-xs break-all">{data.stream_url}</dd>
            </div>
          </dl>
        )}
      </CardContent>
    </Card>
  );
}
