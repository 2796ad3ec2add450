import { Mic, MessageSquare, Phone, Send, WifiOff } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";

export interface TestCallPanelProps {
  assistant: { id: string; name: string } | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/**
 * The Test Call panel of spec §2. For now a shell: title, status line, empty transcript and the
 * (inactive) controls. The live call is built into it by the live-voice work.
 */
export function TestCallPanel({ assistant, open, onOpenChange }: TestCallPanelProps) {
  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      {/* Spec §2/§9: 60% on small screens, 45% on large; on phones 60% is too narrow to use. */}
      <SheetContent className="w-full gap-0 sm:w-[60%] lg:w-[45%]">
        <SheetHeader className="border-b px-6 pt-6 pb-4">
          <SheetTitle className="pr-8 text-xl break-words">Test Call: {assistant?.name || "Assistant"}</SheetTitle>
          <SheetDescription className="sr-only">Talk to your assistant in the browser.</SheetDescription>
          <div className="mt-2 flex flex-wrap items-center justify-between gap-3">
            <p className="flex items-center gap-2 text-sm text-muted-foreground" role="status">
              <WifiOff className="size-4" aria-hidden="true" />
              Not connected
            </p>
            <Button disabled>
              <Phone />
              Start Call
            </Button>
          </div>
        </SheetHeader>

        <div className="flex flex-1 flex-col items-center justify-center gap-3 px-8 py-10 text-center" data-testid="test-call-transcript">
          <div className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <MessageSquare className="size-6" aria-hidden="true" />
          </div>
          <p className="font-medium">Start a call to begin testing your assistant</p>
          <p className="max-w-sm text-sm text-muted-foreground">
            You&apos;ll be able to speak with your assistant and see how it responds to your queries
          </p>
        </div>

        <div className="flex items-center gap-2 border-t px-6 py-4">
          <Button variant="outline" size="icon" disabled aria-label="Turn microphone on">
            <Mic />
          </Button>
          <Input disabled placeholder="Start call to begin testing" aria-label="Message" />
          <Button size="icon" disabled aria-label="Send message">
            <Send />
          </Button>
        </div>
      </SheetContent>
    </Sheet>
  );
}
