/**
 * One 20 ms clock for every call's RTP in the process. A timer per call cost a callback and a new
 * timer object every 20 ms for each call (10,000 a second at 200 calls); one timer sends every
 * call's frames in one pass. Its ticks are due at start + n·20 ms, so lateness never adds up; a
 * late pass (the event loop was busy) hands each stream every tick that came due meanwhile, and
 * the stream decides how many frames to catch up.
 */
import { performance } from "node:perf_hooks";
import { PTIME_MS } from "./sdp.ts";

export interface ClockedStream {
  /** The clock's ticks up to `last` (inclusive) are due, at `now`. */
  tick(last: number, now: number): void;
}

export interface ClockPasses {
  total: number;
  times: number[];
}

/** Pass times kept for `recentPasses` (a minute of them). */
const PASSES_KEPT = 3000;

export class RtpClock {
  private readonly streams = new Set<ClockedStream>();
  private readonly passes = new Float64Array(PASSES_KEPT);
  private passCount = 0;
  private afterPass: (() => void) | null = null;
  private timer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  /** Ticks run so far: the next one is number `ran`, due at startedAt + ran·20 ms. */
  private ran = 0;

  /**
   * Takes `stream` onto the clock; returns the number of its first tick — the first one not due
   * before now, so nothing is ever sent before its time.
   */
  join(stream: ClockedStream): number {
    this.streams.add(stream);
    if (this.timer === undefined) {
      this.startedAt = performance.now();
      this.ran = 0;
      this.schedule();
      return 0;
    }
    return Math.max(this.ran, Math.ceil((performance.now() - this.startedAt) / PTIME_MS));
  }

  leave(stream: ClockedStream): void {
    this.streams.delete(stream);
    if (this.streams.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private run = () => {
    const fired = this.timer;
    const now = performance.now();
    const last = Math.floor((now - this.startedAt) / PTIME_MS);
    // A timer may fire a fraction of a millisecond early: then no new tick is due yet.
    if (last >= this.ran) {
      this.ran = last + 1;
      this.passes[this.passCount++ % PASSES_KEPT] = now;
      for (const stream of this.streams) stream.tick(last, now);
      this.afterPass?.();
    }
    // The last stream left meanwhile (the clock stopped), or one joined after that (it started afresh).
    if (this.timer === fired) this.schedule();
  };

  /** `run` after every pass, once every stream had its frames. */
  onPass(run: () => void): void {
    this.afterPass = run;
  }

  /**
   * When the last passes ran (performance.now() of this thread), oldest first, and how many passes
   * there were in all: how evenly the clock keeps its 20 ms, as bench:sip prints it.
   */
  recentPasses(): ClockPasses {
    const kept = Math.min(this.passCount, PASSES_KEPT);
    const times = Array.from({ length: kept }, (_, i) => this.passes[(this.passCount - kept + i) % PASSES_KEPT]!);
    return { total: this.passCount, times };
  }

  private schedule() {
    this.timer = setTimeout(this.run, Math.max(0, this.startedAt + this.ran * PTIME_MS - performance.now()));
  }
}

/** The process's clock, shared by every RTP session. */
export const rtpClock = new RtpClock();
