/**
 * AudioWorklet processor: microphone → PCM16 little-endian, 24 kHz mono, posted in chunks of
 * 4096 samples (spec §9) with the chunk's RMS level for the meter.
 *
 * Loaded as its own file through `?worker&url` (CSP script-src 'self'), which bundles its one
 * import (resampler.ts, itself import-free) into it. Chromium resamples the microphone into a
 * 24 kHz context itself; browsers that refuse to join a microphone to a context of another rate
 * (Firefox) get a context at the device's rate, and this processor low-pass filters, then
 * resamples (resampler.ts).
 */
import { Resampler } from "./resampler";

// The AudioWorkletGlobalScope is not in TypeScript's DOM lib; the few names used here.
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;

const TARGET_RATE = 24_000;
const CHUNK_SAMPLES = 4096;

export type CaptureWorkletMessage = { type: "enabled"; enabled: boolean };
export interface CaptureChunk {
  pcm: ArrayBuffer;
  level: number;
}

class CaptureProcessor extends AudioWorkletProcessor {
  private chunk = new Int16Array(CHUNK_SAMPLES);
  private filled = 0;
  private sumSquares = 0;
  private enabled = true;
  private readonly resampler = new Resampler(sampleRate, TARGET_RATE);
  private readonly emit = (value: number) => this.push(value);

  constructor() {
    super();
    this.port.onmessage = (event: MessageEvent<CaptureWorkletMessage>) => {
      if (event.data.type !== "enabled") return;
      this.enabled = event.data.enabled;
      // A muted microphone sends nothing, not even the half-filled chunk from before.
      if (!this.enabled) this.reset();
    };
  }

  private reset(): void {
    this.filled = 0;
    this.sumSquares = 0;
  }

  private push(value: number): void {
    const clamped = value < -1 ? -1 : value > 1 ? 1 : value;
    this.chunk[this.filled] = clamped < 0 ? clamped * 0x8000 : clamped * 0x7fff;
    this.sumSquares += clamped * clamped;
    this.filled += 1;
    if (this.filled < CHUNK_SAMPLES) return;
    const level = Math.sqrt(this.sumSquares / CHUNK_SAMPLES);
    const pcm = this.chunk.buffer as ArrayBuffer;
    const message: CaptureChunk = { pcm, level };
    this.port.postMessage(message, [pcm]);
    this.chunk = new Int16Array(CHUNK_SAMPLES);
    this.reset();
  }

  process(inputs: Float32Array[][]): boolean {
    const input = inputs[0]?.[0];
    if (!input || input.length === 0) return true;
    if (!this.enabled) {
      this.resampler.skip(input);
      return true;
    }
    this.resampler.process(input, this.emit);
    return true;
  }
}

registerProcessor("capture-processor", CaptureProcessor);
