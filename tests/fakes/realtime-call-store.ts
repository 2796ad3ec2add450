/** In-memory CallStore and recording sink for call-engine tests (the database comes later). */
import type { ToolUse, TranscriptEntry } from "../../src/shared/calls.ts";
import type { CallEntryWrite, CallFinish, CallRecordCheck, CallStart, CallStore, OpenRecording } from "../../src/server/voice/seams.ts";

export interface MemoryCallRecord extends CallStart {
  id: string;
  endTime: string | null;
  endedReason: string | null;
  cost: number | null;
  recording: string | null;
}

export class MemoryCallStore implements CallStore {
  readonly records = new Map<string, MemoryCallRecord>();
  readonly reads: string[] = [];
  finishAttempts = 0;
  failInsert = false;
  failFinish = false;
  /** Refuse a finish() whose logs hold any transcript entry (as a database refusing their text would). */
  refuseLogs = false;
  /** Fail this many finish() calls, then succeed. */
  failFinishTimes = 0;
  /** Simulate a write that did not stick (the re-read shows no end time). */
  loseFinish = false;
  private counter = 0;

  async insert(start: CallStart): Promise<string> {
    if (this.failInsert) throw new Error("insert failed");
    this.counter += 1;
    const id = `call-record-${this.counter}`;
    this.records.set(id, { ...structuredClone(start), id, endTime: null, endedReason: null, cost: null, recording: null });
    return id;
  }

  /** Every progress save, in order (call id and the entries it wrote). */
  readonly progress: Array<{ id: string; entries: CallEntryWrite[] }> = [];

  /** Like the database: each entry replaces the one at its position while the call is open. */
  async saveProgress(id: string, entries: readonly CallEntryWrite[]): Promise<void> {
    const record = this.records.get(id);
    if (!record) throw new Error(`no call ${id}`);
    this.progress.push({ id, entries: structuredClone([...entries]) });
    if (record.endTime !== null) return;
    for (const e of entries) this.saved(id, e.kind)[e.position] = structuredClone(e.body);
    record.logs = { ...record.logs, transcript: this.savedOf(id, "transcript") as TranscriptEntry[], toolsUsed: this.savedOf(id, "tool") as ToolUse[] };
  }

  private readonly entries = new Map<string, unknown[]>();
  private saved(id: string, kind: string): unknown[] {
    let list = this.entries.get(`${id}/${kind}`);
    if (!list) this.entries.set(`${id}/${kind}`, (list = []));
    return list;
  }
  private savedOf(id: string, kind: string): unknown[] {
    return this.saved(id, kind).filter((e) => e !== undefined);
  }

  async finish(id: string, update: CallFinish): Promise<void> {
    this.finishAttempts += 1;
    if (this.failFinish) throw new Error("update failed");
    if (this.refuseLogs && update.logs.transcript.length > 0) throw new Error("unsupported Unicode escape sequence");
    if (this.failFinishTimes > 0) {
      this.failFinishTimes -= 1;
      throw new Error("update failed");
    }
    const record = this.records.get(id);
    if (!record) throw new Error(`no call ${id}`);
    if (this.loseFinish) return;
    Object.assign(record, structuredClone(update));
  }

  async read(id: string): Promise<CallRecordCheck | null> {
    this.reads.push(id);
    const record = this.records.get(id);
    return record ? { endTime: record.endTime, cost: record.cost } : null;
  }

  only(): MemoryCallRecord {
    if (this.records.size !== 1) throw new Error(`expected one call record, found ${this.records.size}`);
    return [...this.records.values()][0]!;
  }
}

/**
 * Recordings kept in memory, written the way storage gets them: appended in slices, the header
 * patched at the end. `saved` holds finished ones; `slices` counts appends per key.
 */
export function memoryRecordings(): { saved: Map<string, Buffer>; slices: Map<string, number>; open: OpenRecording; failOpen: boolean } {
  const saved = new Map<string, Buffer>();
  const slices = new Map<string, number>();
  const sink = {
    saved,
    slices,
    failOpen: false,
    open: async (key: string) => {
      if (sink.failOpen) throw new Error("storage unavailable");
      const parts: Buffer[] = [];
      return {
        append: async (chunk: Uint8Array) => {
          parts.push(Buffer.from(chunk));
          slices.set(key, (slices.get(key) ?? 0) + 1);
        },
        finish: async ({ head }: { head: Uint8Array }) => {
          const whole = Buffer.concat(parts);
          Buffer.from(head).copy(whole, 0);
          saved.set(key, whole);
        },
        abort: async () => {
          parts.length = 0;
        },
      };
    },
  };
  return sink;
}
