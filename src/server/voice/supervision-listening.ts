/**
 * What supervisors hear of a call: the mix (supervision-audio.ts ListenMixer) runs only while
 * someone listens or has taken over — a call nobody hears costs nothing extra — and the same
 * frame buffer goes to every listener. The controller hears the caller alone; the others hear
 * both sides.
 */
import { ListenMixer, MIX_FRAME_MS } from "./supervision-audio.ts";
import type { Watcher } from "./supervision-seams.ts";

export interface Audience {
  /** The supervisors and whether each listens. */
  watchers(): Iterable<[Watcher, { listening: boolean }]>;
  /** The one who has taken over, if anyone. */
  controller(): Watcher | undefined;
}

export class ListeningTaps {
  private mixer: ListenMixer | null = null;
  private ticker: NodeJS.Timeout | null = null;

  constructor(
    private readonly sampleRate: number,
    private readonly audience: Audience,
  ) {}

  get active(): boolean {
    return this.mixer !== null;
  }

  /** Starts or stops the mix as listeners come and go. */
  update(needed: boolean): void {
    if (needed && !this.mixer) {
      this.mixer = new ListenMixer(this.sampleRate);
      this.ticker = setInterval(() => this.tick(), MIX_FRAME_MS).unref();
    } else if (!needed && this.mixer) this.stop();
  }

  stop(): void {
    this.mixer = null;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
  }

  /** Caller audio (PCM16), as received. */
  caller(samples: Int16Array): void {
    if (!this.mixer) return;
    const frames = this.mixer.caller(samples);
    const controller = this.audience.controller();
    for (const [watcher, state] of this.audience.watchers()) {
      if (watcher === controller) watcher.audio(frames.caller);
      else if (state.listening) watcher.audio(frames.mixed);
    }
  }

  /** What the caller hears (the assistant's audio, or the controller's voice). */
  heard(samples: Int16Array): void {
    this.mixer?.heard(samples);
  }

  /** Barge-in: the caller's queue was flushed. */
  cleared(): void {
    this.mixer?.clear();
  }

  private tick(): void {
    const frames = this.mixer?.idle();
    if (!frames?.length) return;
    const controller = this.audience.controller();
    for (const [watcher, state] of this.audience.watchers()) {
      if (!state.listening || watcher === controller) continue;
      for (const frame of frames) watcher.audio(frame);
    }
  }
}
