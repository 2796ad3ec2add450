/**
 * The speaker side of a call in the browser: an AudioWorklet playing PCM16 from a queue
 * (playback-worklet.ts), reporting the milliseconds played per item. The Test Call plays the
 * assistant at 24 kHz; the live board plays a call it listens to at the call's own rate.
 */
import type { PlaybackOptions, PlaybackReport, PlaybackWorkletMessage } from "./playback-worklet";
// Vite bundles the worklet as its own file and hands back its URL (the linter cannot see Vite's default export).
// oxlint-disable-next-line import/default
import playbackWorkletUrl from "./playback-worklet.ts?worker&url";

export interface Playback {
  /** Queue a chunk of the item's audio (the buffer is transferred to the audio thread). */
  push(itemId: string, pcm: ArrayBuffer): void;
  /** Barge-in: drop every queued sample now; a final report for the item follows. */
  clear(): void;
  close(): void;
}

export interface PlaybackHandlers {
  /** About every 100 ms while an item plays, when it ran out of queued audio, and after a clear. */
  played(report: PlaybackReport): void;
}

/**
 * The context is created synchronously so a caller can do it inside the click that starts the
 * call (Safari only lets audio start from a user gesture); the worklet loads when `ready` resolves.
 */
export function createPlayback(handlers: PlaybackHandlers, { sampleRate = 24_000, ...options }: PlaybackOptions & { sampleRate?: number } = {}): Playback & { ready: Promise<void> } {
  const context = new AudioContext({ sampleRate, latencyHint: "interactive" });
  let node: AudioWorkletNode | null = null;
  let closed = false;
  // Audio that arrives before the worklet is loaded waits here (the greeting can be that quick).
  const pending: PlaybackWorkletMessage[] = [];

  const post = (message: PlaybackWorkletMessage, transfer: Transferable[] = []) => {
    if (closed) return;
    if (node) node.port.postMessage(message, transfer);
    else if (message.type === "clear") pending.length = 0;
    else pending.push(message);
  };

  const ready = (async () => {
    await context.audioWorklet.addModule(playbackWorkletUrl);
    if (closed) return;
    const created = new AudioWorkletNode(context, "playback-processor", {
      numberOfInputs: 0,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      processorOptions: options,
    });
    created.port.onmessage = (event: MessageEvent<PlaybackReport>) => {
      if (!closed) handlers.played(event.data);
    };
    created.connect(context.destination);
    node = created;
    for (const message of pending.splice(0)) post(message, message.type === "push" ? [message.pcm] : []);
    if (context.state !== "running") await context.resume();
  })();
  ready.catch(() => {});

  return {
    ready,
    push(itemId, pcm) {
      post({ type: "push", itemId, pcm }, [pcm]);
    },
    clear() {
      post({ type: "clear" });
    },
    close() {
      if (closed) return;
      closed = true;
      pending.length = 0;
      if (node) {
        node.port.onmessage = null;
        node.disconnect();
      }
      void context.close();
    },
  };
}
