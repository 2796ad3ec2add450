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

/** A live transcript as the server sends it: entries by index, with holes filled as they arrive. */
export type LiveEntries = Array<TranscriptEntry | undefined>;

/** The transcript with entry `index` set (a new entry, or the server's final word on one). */
export function withEntry(entries: LiveEntries, index: number, entry: TranscriptEntry): LiveEntries {
  const next = entries.slice();
  next[index] = entry;
  return next;
}

/** The transcript with `text` appended to entry `index`; the same array for an entry not received (nothing to append to). */
export function withDelta(entries: LiveEntries, index: number, text: string): LiveEntries {
  const entry = entries[index];
  return entry ? withEntry(entries, index, { ...entry, content: entry.content + text }) : entries;
}

/** A view's state after a transcript message (an entry, or a piece of one); the same state for a piece of an entry never received. */
export function withTranscript<S extends { entries: LiveEntries }>(state: S, message: { index: number; entry: TranscriptEntry } | { index: number; text: string }): S {
  const entries = "entry" in message ? withEntry(state.entries, message.index, message.entry) : withDelta(state.entries, message.index, message.text);
  return entries === state.entries ? state : { ...state, entries };
}
