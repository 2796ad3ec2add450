/**
 * What a transcript entry shows beyond its text, as plain values: the components render them,
 * the web unit tests check them (src/web/lib/transcript.test.ts).
 */
import type { TranscriptEntry } from "@shared/calls";
import { prettyJson } from "./format";

/** The point where the caller cut the assistant off ("Interrupted after 1.2 s"); null when not cut off. */
export function interruptionText(entry: TranscriptEntry): string | null {
  return entry.interruptedAtMs === undefined ? null : `Interrupted after ${(entry.interruptedAtMs / 1000).toFixed(1)} s`;
}

/** A tool request's Parameters or a tool response's Result, as shown; null for other entries. */
export function toolJsonOf(entry: TranscriptEntry): { label: "Parameters" | "Result"; json: string } | null {
  if (entry.type === "tool-request") return { label: "Parameters", json: prettyJson(entry.parameters ?? {}) };
  if (entry.type === "tool-response") return { label: "Result", json: prettyJson(entry.result ?? null) };
  return null;
}
