/**
 * The microphone side of a call in the browser: permission, then an AudioWorklet that turns the
 * microphone into PCM16 chunks (capture-worklet.ts): 24 kHz chunks of 4096 samples for a test
 * call; the call's rate in short chunks for a supervisor who took over a live call.
 */
import type { CaptureChunk, CaptureOptions, CaptureWorkletMessage } from "./capture-worklet";
// Vite bundles the worklet as its own file and hands back its URL (the linter cannot see Vite's default export).
// oxlint-disable-next-line import/default
import captureWorkletUrl from "./capture-worklet.ts?worker&url";

export const MIC_REQUIRED_MESSAGE = "Microphone access is required for voice calls";

export interface Capture {
  /** A muted microphone posts nothing at all. */
  setEnabled(enabled: boolean): void;
  stop(): void;
}

/** Asks for the microphone (spec: echo cancellation, noise suppression, one channel). */
export function requestMicrophone(): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) {
    // Insecure origins (plain http other than localhost) have no mediaDevices at all.
    return Promise.reject(new DOMException("This page cannot use the microphone (it needs HTTPS)", "NotSupportedError"));
  }
  return navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: true, noiseSuppression: true, channelCount: 1 },
    video: false,
  });
}

/** The user (or the browser's policy) refused the microphone, as opposed to a device failure. */
export function isPermissionDenied(err: unknown): boolean {
  return err instanceof DOMException && (err.name === "NotAllowedError" || err.name === "SecurityError" || err.name === "PermissionDeniedError");
}

export function stopStream(stream: MediaStream): void {
  for (const track of stream.getTracks()) track.stop();
}

function sourceIn(context: AudioContext, stream: MediaStream): MediaStreamAudioSourceNode | null {
  try {
    return context.createMediaStreamSource(stream);
  } catch (err) {
    // Firefox will not join a microphone to a context of another sample rate.
    if (err instanceof DOMException && err.name === "NotSupportedError") return null;
    throw err;
  }
}

/** Starts sending the stream's audio to `onChunk`. The stream's tracks are stopped by `stop()`. */
export async function startCapture(stream: MediaStream, onChunk: (chunk: CaptureChunk) => void, options: CaptureOptions = {}): Promise<Capture> {
  let context = new AudioContext({ sampleRate: options.targetRate ?? 24_000, latencyHint: "interactive" });
  let source = sourceIn(context, stream);
  if (!source) {
    void context.close();
    context = new AudioContext({ latencyHint: "interactive" });
    source = context.createMediaStreamSource(stream);
  }
  try {
    await context.audioWorklet.addModule(captureWorkletUrl);
    const node = new AudioWorkletNode(context, "capture-processor", {
      numberOfInputs: 1,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      channelCount: 1,
      channelCountMode: "explicit",
      processorOptions: options,
    });
    node.port.onmessage = (event: MessageEvent<CaptureChunk>) => onChunk(event.data);
    source.connect(node);
    // The node writes silence; joining it to the destination keeps the graph pulling it.
    node.connect(context.destination);
    if (context.state !== "running") await context.resume();
    let stopped = false;
    return {
      setEnabled(enabled) {
        const message: CaptureWorkletMessage = { type: "enabled", enabled };
        node.port.postMessage(message);
      },
      stop() {
        if (stopped) return;
        stopped = true;
        node.port.onmessage = null;
        source.disconnect();
        node.disconnect();
        stopStream(stream);
        void context.close();
      },
    };
  } catch (err) {
    void context.close();
    throw err;
  }
}
