/**
 * What of a call's transcript and tool calls changed since the last save. The transcript's
 * changes name their slot; tool calls are only ever appended. A save then writes just those
 * (docs/decisions/036-transcript-entries.md): a turn costs the same at minute 60 as at minute 1.
 */
import type { ToolUse, TranscriptEntry } from "../../shared/calls.ts";
import { cleanForStorage } from "./clean-text.ts";
import type { CallEntryWrite } from "./seams.ts";

export class CallProgress {
  private readonly changed = new Set<number>();
  private toolsSaved = 0;

  constructor(
    private readonly entryAt: (slot: number) => TranscriptEntry | undefined,
    private readonly toolsUsed: () => readonly ToolUse[],
  ) {}

  /** A transcript slot was set or appended to. */
  slotChanged(slot: number): void {
    this.changed.add(slot);
  }

  /** The entries changed since the last call, cleaned for storage (clean-text.ts); marks them saved. */
  take(): CallEntryWrite[] {
    const out: CallEntryWrite[] = [];
    for (const slot of [...this.changed].sort((a, b) => a - b)) {
      const entry = this.entryAt(slot);
      if (entry) out.push({ kind: "transcript", position: slot, body: cleanForStorage(entry) });
    }
    this.changed.clear();
    const tools = this.toolsUsed();
    for (; this.toolsSaved < tools.length; this.toolsSaved += 1) {
      out.push({ kind: "tool", position: this.toolsSaved, body: cleanForStorage(tools[this.toolsSaved]!) });
    }
    return out;
  }
}
