/**
 * The transcript of one call, built from provider events (spec §4 "Live conversation").
 *
 * Entries live in numbered slots. A user turn reserves its slot when the provider commits
 * the caller's audio and is filled when the (asynchronous) transcription arrives, so the
 * user's line stays before the reply it triggered even when the transcription comes late.
 * Every change is reported as (slot index, entry) — the live socket's `transcript` message.
 */
import type { SupervisorAction, ToolData, TranscriptEntry } from "../../shared/calls.ts";

/** Consecutive assistant pieces closer than this merge into one entry (spec §9). */
export const MERGE_WINDOW_MS = 2000;

/**
 * A change of the transcript, as the live socket carries it: a whole entry (new, or replaced:
 * a user slot filled, an interruption mark), or text appended to an entry. Appends keep a long
 * assistant turn's traffic linear: each piece is sent once, never the grown entry again.
 */
export type TranscriptChange = { kind: "set"; index: number; entry: TranscriptEntry } | { kind: "append"; index: number; text: string };
export type TranscriptListener = (change: TranscriptChange) => void;

export class TranscriptBuilder {
  private readonly slots: Array<TranscriptEntry | undefined> = [];
  /** Slot and time of the latest assistant piece, for the merge rule. */
  private lastPiece: { index: number; at: number } | null = null;
  private readonly assistantSlots = new Map<string, number>();
  private readonly userSlots = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly onChange: TranscriptListener = () => {},
  ) {}

  private stamp(): string {
    return new Date(this.now()).toISOString();
  }

  /** Interruption marks of items whose entry does not exist yet (cut before their first text). */
  private readonly pendingMarks = new Map<string, number>();

  private put(index: number, entry: TranscriptEntry): number {
    this.slots[index] = entry;
    this.onChange({ kind: "set", index, entry: { ...entry } });
    return index;
  }

  private append(entry: TranscriptEntry): number {
    return this.put(this.slots.length, entry);
  }

  /**
   * A piece of the assistant's spoken text. It joins the previous entry when that entry is
   * the assistant's and its last piece came less than 2 s ago; otherwise it starts a new one.
   */
  assistantPiece(text: string, itemId?: string): number | undefined {
    if (text === "") return undefined;
    const held = itemId === undefined ? undefined : this.assistantSlots.get(itemId);
    if (held !== undefined && this.slots[held] === undefined) {
      this.fillCutAssistant(held, itemId!, text);
      return held;
    }
    const at = this.now();
    const last = this.lastPiece;
    let index: number;
    if (last && last.index === this.slots.length - 1 && at - last.at < MERGE_WINDOW_MS) {
      const entry = this.slots[last.index]!;
      index = last.index;
      this.slots[index] = { ...entry, content: entry.content + text };
      this.onChange({ kind: "append", index, text });
    } else {
      index = this.append({ type: "assistant", content: text, timestamp: this.stamp() });
    }
    this.lastPiece = { index, at };
    if (itemId !== undefined && !this.assistantSlots.has(itemId)) {
      this.assistantSlots.set(itemId, index);
      this.applyPendingMark(itemId);
    }
    return index;
  }

  private applyPendingMark(itemId: string): void {
    const mark = this.pendingMarks.get(itemId);
    if (mark === undefined) return;
    this.pendingMarks.delete(itemId);
    this.markInterrupted(itemId, mark);
  }

  /** The first text of an item whose slot was held at a barge-in: it fills that slot, and takes no later piece. */
  private fillCutAssistant(index: number, itemId: string, text: string): void {
    this.put(index, { type: "assistant", content: text, timestamp: this.stamp() });
    this.applyPendingMark(itemId);
  }

  /** True once some text of this assistant item is in the transcript. */
  hasAssistantItem(itemId: string): boolean {
    const index = this.assistantSlots.get(itemId);
    return index !== undefined && this.slots[index] !== undefined;
  }

  /** The full text of an assistant item; used only when no piece of it was streamed. */
  assistantDone(itemId: string, transcript: string): void {
    if (!this.hasAssistantItem(itemId)) this.assistantPiece(transcript, itemId);
  }

  /**
   * The caller barged in on these items (in play order). Their entries are closed: the next
   * turn's text never joins them, even when it streams before the provider confirms the
   * truncation. An item heard before its first transcript piece keeps its place before the
   * caller's words: its slot is held now and filled when its text arrives.
   */
  cutOff(itemIds: readonly string[]): void {
    for (const itemId of itemIds) {
      const index = this.assistantSlots.get(itemId);
      if (index === undefined) {
        this.assistantSlots.set(itemId, this.slots.length);
        this.slots.push(undefined);
      } else if (this.lastPiece?.index === index) {
        this.lastPiece = null;
      }
    }
  }

  /** The caller barged in: only `atMs` of this item's audio was heard. */
  markInterrupted(itemId: string, atMs: number): void {
    const index = this.assistantSlots.get(itemId);
    if (index === undefined || this.slots[index] === undefined) {
      // Cut before its first transcript piece: the mark waits for the item's text.
      this.pendingMarks.set(itemId, atMs);
      return;
    }
    const entry = this.slots[index]!;
    this.put(index, { ...entry, interruptedAtMs: Math.max(0, Math.round(atMs)) });
    // Whatever comes next is a new turn, even within the merge window.
    if (this.lastPiece?.index === index) this.lastPiece = null;
  }

  /** Hold the place of a user turn whose transcription is still running. */
  reserveUser(itemId: string): void {
    if (this.userSlots.has(itemId)) return;
    this.userSlots.set(itemId, this.slots.length);
    this.slots.push(undefined);
  }

  /** The transcription of a user turn; an empty one leaves no entry. */
  fillUser(itemId: string, text: string, isError = false): void {
    const content = text.trim();
    if (content === "") return;
    const entry: TranscriptEntry = { type: "user", content, timestamp: this.stamp(), ...(isError ? { isError } : {}) };
    const index = this.userSlots.get(itemId);
    if (index === undefined || this.slots[index] !== undefined) {
      this.append(entry);
    } else {
      this.put(index, entry);
    }
  }

  /** A typed user message. */
  user(text: string): number {
    return this.append({ type: "user", content: text, timestamp: this.stamp() });
  }

  system(content: string, isError = false): number {
    return this.append({ type: "system", content, timestamp: this.stamp(), ...(isError ? { isError } : {}) });
  }

  /** What a supervisor did on the live board (who, what, when): kept in the record like any line. */
  supervisorNote(content: string, supervisor: { name: string; action: SupervisorAction }): number {
    return this.append({ type: "system", content, timestamp: this.stamp(), supervisor: { ...supervisor } });
  }

  toolRequest(content: string, parameters: unknown, toolData: ToolData): number {
    return this.append({ type: "tool-request", content, timestamp: this.stamp(), parameters, toolData });
  }

  toolResponse(content: string, result: unknown, toolData: ToolData, isError = false): number {
    return this.append({
      type: "tool-response",
      content,
      timestamp: this.stamp(),
      result,
      toolData,
      ...(isError ? { isError } : {}),
    });
  }

  /** Every slot as it is now, holes as null: indexes match the `transcript` changes (the live board's snapshot). */
  snapshot(): Array<TranscriptEntry | null> {
    return this.slots.map((entry) => (entry ? { ...entry } : null));
  }

  /** The entry in a slot, as it is now (undefined for a hole). */
  entryAt(slot: number): TranscriptEntry | undefined {
    const entry = this.slots[slot];
    return entry && { ...entry };
  }

  /** The transcript to store: filled slots in order (never-filled user slots are dropped). */
  entries(): TranscriptEntry[] {
    return this.slots.filter((entry): entry is TranscriptEntry => entry !== undefined).map((entry) => ({ ...entry }));
  }
}
