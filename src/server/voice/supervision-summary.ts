/**
 * The facts behind a call's line on the live board: the last thing said and the "stuck" rules
 * (src/shared/live.ts STUCK_RULES), kept up to date from transcript changes, and the pace of
 * pushing them (at most one summary per SUMMARY_INTERVAL_MS, the last change always sent).
 */
import { STUCK_ASSISTANT_TURNS, STUCK_SILENCE_MS, type LiveCallSummary, type StuckReason } from "../../shared/live.ts";
import type { TranscriptChange } from "./transcript.ts";

/** Board updates of one call are sent at most this often (≤ 4 a second). */
export const SUMMARY_INTERVAL_MS = 250;
const LAST_SAID_MAX = 200;

export class SummaryFacts {
  lastSaid: LiveCallSummary["lastSaid"] = null;
  private lastSaidIndex = -1;
  /** Assistant entries since the caller last spoke. */
  private readonly assistantRun = new Set<number>();
  private toolError = false;
  private lastSpokeAt = 0;
  private silenceTimer: NodeJS.Timeout | null = null;

  /** `silent`: nobody has spoken for STUCK_SILENCE_MS (the summary changes). */
  constructor(
    private readonly now: () => number,
    private readonly silent: () => void,
  ) {}

  stuck(): StuckReason[] {
    const reasons: StuckReason[] = [];
    if (this.assistantRun.size >= STUCK_ASSISTANT_TURNS) reasons.push("assistantTurns");
    if (this.toolError) reasons.push("toolError");
    if (this.now() - this.lastSpokeAt >= STUCK_SILENCE_MS) reasons.push("silence");
    return reasons;
  }

  /** Updates the facts a transcript change touches; true when the summary may have changed. */
  observe(change: TranscriptChange): boolean {
    if (change.kind === "append") {
      if (change.index === this.lastSaidIndex && this.lastSaid) this.said(this.lastSaid.speaker, this.lastSaid.text + change.text, change.index);
      this.spoke();
      return true;
    }
    const { index, entry } = change;
    switch (entry.type) {
      case "user":
        this.assistantRun.clear();
        if (index >= this.lastSaidIndex) this.said("caller", entry.content, index);
        this.spoke();
        return true;
      case "assistant":
        this.assistantRun.add(index);
        if (index >= this.lastSaidIndex) this.said("assistant", entry.content, index);
        this.spoke();
        return true;
      case "tool-response":
        // The latest tool result decides: a later success clears the badge.
        this.toolError = entry.isError === true;
        return true;
      case "system":
        if (entry.supervisor?.action !== "spoke") return false;
        this.said("supervisor", entry.content, index);
        this.spoke();
        return true;
      default:
        return false;
    }
  }

  private said(speaker: "caller" | "assistant" | "supervisor", text: string, index: number): void {
    const trimmed = text.length > LAST_SAID_MAX ? `…${text.slice(text.length - LAST_SAID_MAX + 1)}` : text;
    this.lastSaid = { speaker, text: trimmed };
    this.lastSaidIndex = index;
  }

  /** Somebody spoke: the silence rule counts from now (a timer raises it when nobody speaks again). */
  spoke(): void {
    this.lastSpokeAt = this.now();
    if (this.silenceTimer) return;
    const check = () => {
      this.silenceTimer = null;
      const left = this.lastSpokeAt + STUCK_SILENCE_MS - this.now();
      if (left > 0) {
        this.silenceTimer = setTimeout(check, left).unref();
        return;
      }
      this.silent();
    };
    this.silenceTimer = setTimeout(check, STUCK_SILENCE_MS).unref();
  }

  stop(): void {
    if (this.silenceTimer) clearTimeout(this.silenceTimer);
    this.silenceTimer = null;
  }
}

/** At most one push per SUMMARY_INTERVAL_MS; the last change always goes out. */
export class SummaryPace {
  private lastAt = -Infinity;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly now: () => number,
    private readonly push: () => void,
  ) {}

  changed(): void {
    if (this.timer) return;
    const wait = this.lastAt + SUMMARY_INTERVAL_MS - this.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait).unref();
  }

  flush(): void {
    this.lastAt = this.now();
    this.push();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
