export type RangeResult =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number }
  | { kind: "unsatisfiable" };

const SINGLE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * Interprets a Range header for an object of `size` bytes (RFC 9110 §14.2).
 * Only one byte range is honoured: a syntactically invalid header, another unit or
 * a multi-range request gets the whole object, which the RFC allows and which is
 * all that media players need for seeking.
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (!header) return { kind: "full" };
  const match = SINGLE_RANGE.exec(header);
  if (!match) return { kind: "full" };
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return { kind: "full" };

  if (first === "") {
    // Suffix range: the final N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - length), end: size - 1 };
  }

  const start = Number(first);
  if (last !== "" && Number(last) < start) return { kind: "full" };
  if (start >= size) return { kind: "unsatisfiable" };
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: "partial", start, end };
}
