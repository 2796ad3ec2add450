/**
 * What the caller has heard of each assistant item, across every item still queued for
 * playback (a filler, then a tool answer, ...): milliseconds sent to the transport and
 * milliseconds the transport reports played (Twilio's echoed marks, the browser's reports).
 *
 * Barge-in (protocols §1.9, Algorithm B): the items with audio the caller has not heard in
 * full are interrupted — the one being heard is truncated at `min(sent, played + 50 ms)`
 * (a mark or report lags the speaker by up to a chunk), every later queued item at 0 — and
 * the response that was active is cancelled: late audio deltas of it, or of an interrupted
 * item, are dropped.
 */

/** Playback reports lag what the speaker has played by up to this much. */
export const HEARD_MARGIN_MS = 50;

interface ItemPlayback {
  sentMs: number;
  playedMs: number;
  audioDone: boolean;
  interrupted: boolean;
}

export interface Truncation {
  itemId: string;
  audioEndMs: number;
}

/** Cancelled responses and truncated items remembered (for late deltas); older ones are long finished. */
const MAX_REMEMBERED = 16;

export class PlaybackLedger {
  /** In the order their audio was first sent, which is the order the caller hears them. */
  private readonly items = new Map<string, ItemPlayback>();
  private activeResponseId: string | null = null;
  private readonly cancelled: string[] = [];
  /** Interrupted items already truncated: out of `items` (a long call's barge-ins would pile up there), still refused. */
  private readonly truncated: string[] = [];

  /** response.created */
  responseStarted(responseId: string): void {
    this.activeResponseId = responseId;
  }

  /** response.done */
  responseDone(responseId: string): void {
    if (this.activeResponseId === responseId) this.activeResponseId = null;
  }

  /** Whether audio of this item (of this response) may still go to the caller. */
  accepts(itemId: string, responseId: string): boolean {
    return !this.isInterrupted(itemId) && !this.cancelled.includes(responseId);
  }

  /** Audio of the item went to the caller (only what the transport really sent). */
  sent(itemId: string, ms: number): void {
    let item = this.items.get(itemId);
    if (!item) {
      item = { sentMs: 0, playedMs: 0, audioDone: false, interrupted: false };
      this.items.set(itemId, item);
    }
    item.sentMs += ms;
  }

  /** The transport's report; never beyond what was sent, never backwards. */
  played(itemId: string, ms: number): void {
    const item = this.items.get(itemId);
    if (!item) return;
    item.playedMs = Math.max(item.playedMs, Math.min(ms, item.sentMs));
    // Heard in full and complete: nothing left to account for.
    if (item.audioDone && !item.interrupted && item.playedMs >= item.sentMs) this.items.delete(itemId);
  }

  playedMs(itemId: string): number {
    return this.items.get(itemId)?.playedMs ?? 0;
  }

  /** response.output_audio.done: no more audio will come for the item. */
  audioDone(itemId: string): void {
    const item = this.items.get(itemId);
    if (item) item.audioDone = true;
  }

  /** The caller has heard every item's audio sent so far (interrupted items were cut: nothing to wait for). */
  allHeard(): boolean {
    for (const item of this.items.values()) if (!item.interrupted && item.playedMs < item.sentMs) return false;
    return true;
  }

  /** After a barge-in, the rest of the item (late audio, text) was never heard. */
  isInterrupted(itemId: string): boolean {
    return this.items.get(itemId)?.interrupted ?? this.truncated.includes(itemId);
  }

  /** Items whose playback is still accounted for (heard in full and complete ones are let go). */
  get size(): number {
    return this.items.size;
  }

  /** Whether a response is in progress (between response.created and response.done). */
  get responseActive(): boolean {
    return this.activeResponseId !== null;
  }

  /**
   * The caller started speaking: marks every item not heard in full as interrupted and the
   * active response as cancelled, and returns those items in play order. Their truncation
   * points are read later with `truncations`, once the transport's figures are final.
   */
  interrupt(): string[] {
    if (this.activeResponseId) {
      remember(this.cancelled, this.activeResponseId);
      this.activeResponseId = null;
    }
    const pending: string[] = [];
    for (const [itemId, item] of this.items) {
      if (item.interrupted) continue;
      if (item.audioDone && item.playedMs >= item.sentMs) continue;
      item.interrupted = true;
      pending.push(itemId);
    }
    return pending;
  }

  /**
   * Where to truncate interrupted items: the first one at what was heard, later ones at 0.
   * Their figures are final now: the items are let go, their ids kept to refuse late audio.
   */
  truncations(itemIds: readonly string[]): Truncation[] {
    return itemIds.map((itemId, index) => {
      const item = this.items.get(itemId);
      if (item?.interrupted) {
        this.items.delete(itemId);
        remember(this.truncated, itemId);
      }
      // Floored: a value beyond the item's audio is an error at the provider.
      if (!item || index > 0) return { itemId, audioEndMs: 0 };
      return { itemId, audioEndMs: Math.floor(Math.min(item.sentMs, item.playedMs + HEARD_MARGIN_MS)) };
    });
  }
}

function remember(ids: string[], id: string): void {
  ids.push(id);
  if (ids.length > MAX_REMEMBERED) ids.shift();
}
