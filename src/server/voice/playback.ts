/**
 * What the caller has heard of each assistant item: milliseconds sent to the transport and
 * milliseconds the transport reports played. Barge-in truncates the provider's item at the
 * played point, so the model's context matches what the caller heard.
 */

interface ItemPlayback {
  sentMs: number;
  playedMs: number;
  audioDone: boolean;
  interrupted: boolean;
}

export interface Interruption {
  itemId: string;
  playedMs: number;
}

export class PlaybackLedger {
  private readonly items = new Map<string, ItemPlayback>();
  private lastItemId: string | null = null;

  private item(itemId: string): ItemPlayback {
    let item = this.items.get(itemId);
    if (!item) {
      item = { sentMs: 0, playedMs: 0, audioDone: false, interrupted: false };
      this.items.set(itemId, item);
    }
    return item;
  }

  /** Audio of the item goes to the caller. */
  sent(itemId: string, ms: number): void {
    this.item(itemId).sentMs += ms;
    this.lastItemId = itemId;
  }

  /** The transport's report; never beyond what was sent, never backwards. */
  played(itemId: string, ms: number): void {
    const item = this.items.get(itemId);
    if (item) item.playedMs = Math.max(item.playedMs, Math.min(ms, item.sentMs));
  }

  /** response.output_audio.done: no more audio will come for the item. */
  audioDone(itemId: string): void {
    const item = this.items.get(itemId);
    if (item) item.audioDone = true;
  }

  /** After a barge-in, the rest of the item (late audio, text) was never heard. */
  isInterrupted(itemId: string): boolean {
    return this.items.get(itemId)?.interrupted ?? false;
  }

  /**
   * The caller started speaking: the item to truncate and where, or null when the latest
   * item was heard in full (or nothing was playing). Marks the item interrupted.
   */
  interrupt(): Interruption | null {
    const itemId = this.lastItemId;
    const item = itemId ? this.items.get(itemId) : undefined;
    if (!itemId || !item || item.interrupted) return null;
    const playedMs = Math.min(item.playedMs, item.sentMs);
    if (item.audioDone && playedMs >= item.sentMs) return null;
    item.interrupted = true;
    return { itemId, playedMs };
  }
}
