/**
 * The few string fields of the busiest wire messages (Twilio `media` and `mark`, the provider's
 * audio deltas: about 150 a second per phone call) read straight from the frame's bytes, without
 * making the frame a string and parsing it whole — that was the largest share of a frame's own
 * JavaScript time.
 *
 * Only for compact frames: no backslash and no whitespace anywhere. Then every quote delimits a
 * string, so `"key":"` can only be that key and its value ends at the next quote. A frame that
 * is not like that, or a field whose value is not a plain string, makes the reader give up
 * (`null`), and the caller parses the frame in full as before.
 */

const QUOTE = 0x22;
/** A backslash (an escape), then JSON's four whitespace characters. */
const NOT_COMPACT = [0x5c, 0x20, 0x0a, 0x0d, 0x09];

export class CompactFrame {
  private constructor(private readonly bytes: Buffer) {}

  /** The frame when it starts with `prefix` and is compact; null otherwise. */
  static of(bytes: Buffer, prefix: Buffer): CompactFrame | null {
    if (bytes.length < prefix.length || bytes.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0) return null;
    for (const byte of NOT_COMPACT) if (bytes.indexOf(byte, prefix.length) !== -1) return null;
    return new CompactFrame(bytes);
  }

  /** Whether the frame holds an object inside its own (found from `from`). */
  nests(from = 1): boolean {
    return this.bytes.indexOf(0x7b, from) !== -1;
  }

  /**
   * The first value of `key` (from `fieldKey`): a string, undefined when the key is absent, or
   * null when the value is not a plain string (parse the frame in full).
   */
  string(key: FieldKey): string | undefined | null {
    const at = this.bytes.indexOf(key.bytes);
    if (at === -1) return undefined;
    const start = at + key.bytes.length;
    if (this.bytes[start] !== QUOTE) return null;
    const end = this.bytes.indexOf(QUOTE, start + 1);
    return end === -1 ? null : this.bytes.toString("utf8", start + 1, end);
  }
}

export interface FieldKey {
  readonly bytes: Buffer;
}

/** `"name":` as bytes, made once. */
export function fieldKey(name: string): FieldKey {
  return { bytes: Buffer.from(`${JSON.stringify(name)}:`) };
}

/** A frame prefix as bytes, made once. */
export function framePrefix(text: string): Buffer {
  return Buffer.from(text);
}
