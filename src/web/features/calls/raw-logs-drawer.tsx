import { Check, Copy } from "lucide-react";
import { useEffect, useState } from "react";
import type { CallRecordLogs } from "@shared/call-records";
import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";

interface RawLogsDrawerProps {
  logs: CallRecordLogs | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** "View Raw Logs" (spec §2): the call's logs as formatted JSON, in a drawer from the bottom. */
export function RawLogsDrawer({ logs, open, onOpenChange }: RawLogsDrawerProps) {
  const json = JSON.stringify(logs, null, 2);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(json);
      setCopied(true);
    } catch {
      // Clipboard refused (permissions, insecure origin): the text stays selectable.
    }
  };

  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent side="bottom" className="h-[70vh] gap-0">
        <div className="mx-auto flex min-h-0 w-full max-w-5xl flex-1 flex-col">
          <SheetHeader className="flex-row items-start justify-between gap-4 px-4 pt-5 pb-3 sm:px-6">
            <div className="grid gap-1">
              <SheetTitle className="text-lg">Raw Logs</SheetTitle>
              <SheetDescription>The call&apos;s logs as stored: test flag, transcript and tools used.</SheetDescription>
            </div>
            {logs && (
              <Button variant="outline" size="sm" className="mr-8 shrink-0" onClick={() => void copy()}>
                {copied ? <Check /> : <Copy />}
                {copied ? "Copied" : "Copy JSON"}
              </Button>
            )}
          </SheetHeader>
          <div className="min-h-0 flex-1 px-4 pb-5 sm:px-6">
            {logs ? (
              <pre
                className="h-full overflow-auto rounded-lg border bg-zinc-950 p-4 font-mono text-xs leading-relaxed text-zinc-100"
                data-testid="raw-logs-json"
                tabIndex={0}
              >
                {json}
              </pre>
            ) : (
              <p className="rounded-lg border border-dashed px-6 py-10 text-center text-sm text-muted-foreground">No logs were recorded for this call.</p>
            )}
          </div>
        </div>
      </SheetContent>
    </Sheet>
  );
}
