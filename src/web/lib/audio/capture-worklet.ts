/**
 * AudioWorklet processor: microphone → PCM16 little-endian mono at the target rate (24 kHz for
 * a test call, the call's rate for a supervisor who took over), posted in chunks (4096 samples
 * for a test call, spec §9; shorter for the live board, where each chunk is delay) with the
 * chunk's RMS level for the meter.
 *
 * Loaded as its own file through `?worker&url` (CSP script-src 'self'), which bundles its one
 * import (resampler.ts, itself import-free) into it. Chromium resamples the microphone into a
 * context at the target rate itself; browsers that refuse to join a microphone to a context of another rate
 * (Firefox) get a context at the device's rate, and this processor low-pass filters, then
 * resamples (resampler.ts).
 */
import { Resampler } from "./resampler";

// The AudioWorkletGlobalScope is not in TypeScript's DOM lib; the few names used here.
declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
}
declare function registerProcessor(name: string, processor: new (options?: { processorOptions?: CaptureOptions }) => AudioWorkletProcessor): void;

export interface CaptureOptions {
  /** Rate of the PCM16 posted (default 24 kHz). */
  targetRate?: number;
  /** Samples per posted chunk (default 4096). */
  chunkSamples?: number;
}

export type CaptureWorkletMessage = { type: "enabled"; enabled: boolean };
export interface CaptureChunk {
  pcm: ArrayBuffer;
  level: number;
}

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly chunkSamples: number;
  private chunk: Int16Array;
  private filled = 0;
  private sumSquares = 0;
  private enabled = true;
  private readonly resampler: Resampler;
  private readonly emit = (value: number) => this.push(value);

  constructor(options?: { processorOptions?: CaptureOptions }) {
    super();
    this.chunkSamples = options?.processorOptions?.chunkSamples ?? 4096;
    this.chunk = new Int16Array(this.chunkSamples);
    this.resampler = new Resampler(sampleRate, options?.processorOptions?.targetRate ?? 24_000);
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
    if (this.filled < this.chunkSamples) return;
    const level = Math.sqrt(this.sumSquares / this.chunkSamples);
    const pcm = this.chunk.buffer as ArrayBuffer;
    const message: CaptureChunk = { pcm, level };
    this.port.postMessage(message, [pcm]);
    this.chunk = new Int16Array(this.chunkSamples);
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
