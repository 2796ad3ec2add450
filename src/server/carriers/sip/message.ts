/**
 * SIP messages (RFC 3261 §7): parsed from bytes that may be hostile (a trunk's port is open to
 * the internet), serialised back. Parsing never throws: it answers a message or the reason it
 * is not one, with whatever headers it could read so the caller can still answer 400.
 */

/** A datagram or framed stream message larger than this is refused (RFC 3261 §18.1.1 sizes). */
export const MAX_MESSAGE_BYTES = 65_535;
const MAX_HEADER_LINES = 200;

export type Headers = [name: string, value: string][];

export interface SipRequest {
  kind: "request";
  method: string;
  uri: string;
  headers: Headers;
  body: Buffer;
}

export interface SipResponse {
  kind: "response";
  status: number;
  reason: string;
  headers: Headers;
  body: Buffer;
}

export type SipMessage = SipRequest | SipResponse;

export type ParseResult = { ok: true; message: SipMessage } | { ok: false; error: string; request?: SipRequest };

// RFC 3261 §7.3.3 compact forms, expanded so every lookup sees one name.
const COMPACT: Record<string, string> = {
  i: "call-id", m: "contact", e: "content-encoding", l: "content-length", c: "content-type",
  f: "from", s: "subject", k: "supported", t: "to", v: "via", o: "event", r: "refer-to", u: "allow-events", x: "session-expires",
};

// How names are written when we serialise (lower-case inside).
const CANONICAL: Record<string, string> = {
  "call-id": "Call-ID", cseq: "CSeq", "www-authenticate": "WWW-Authenticate", "max-forwards": "Max-Forwards",
  "record-route": "Record-Route", "content-length": "Content-Length", "content-type": "Content-Type",
  "proxy-authenticate": "Proxy-Authenticate", "min-se": "Min-SE", "proxy-authorization": "Proxy-Authorization", "user-agent": "User-Agent",
};

export const canonicalName = (lower: string) =>
  CANONICAL[lower] ?? lower.replace(/(^|-)([a-z])/g, (_m, dash: string, ch: string) => dash + ch.toUpperCase());

const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]+$/;

/** Headers a request must carry for any answer to be built (RFC 3261 §8.1.1). */
const REQUIRED = ["via", "from", "to", "call-id", "cseq"] as const;

export function parseMessage(data: Buffer): ParseResult {
  if (data.length > MAX_MESSAGE_BYTES) return { ok: false, error: "message too large" };
  const end = data.indexOf("\r\n\r\n");
  if (end < 0) return { ok: false, error: "no end of headers" };
  // latin1 keeps every byte one character, so offsets into the text are offsets into the bytes.
  const lines = data.toString("latin1", 0, end).split("\r\n");
  const start = lines.shift()!;
  const headers: Headers = [];
  // A bad line spoils the message, but the lines around it may still say where a 400 goes.
  let broken: string | null = lines.length > MAX_HEADER_LINES ? "too many header lines" : null;
  for (const line of lines) {
    if ((line.startsWith(" ") || line.startsWith("\t")) && headers.length > 0) {
      // Line folding (§7.3.1): a continuation of the previous header's value.
      headers[headers.length - 1]![1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    const raw = colon > 0 ? line.slice(0, colon).trim().toLowerCase() : "";
    if (!TOKEN.test(raw)) {
      broken ??= "malformed header line";
      continue;
    }
    headers.push([COMPACT[raw] ?? raw, line.slice(colon + 1).trim()]);
  }
  if (broken) return failWith(start, headers, broken);
  const bodyStart = end + 4;
  const declared = headerValue(headers, "content-length");
  let bodyEnd = data.length;
  if (declared !== undefined) {
    if (!/^\d{1,6}$/.test(declared)) return failWith(start, headers, "bad Content-Length");
    const length = Number(declared);
    if (bodyStart + length > data.length) return failWith(start, headers, "body shorter than Content-Length");
    bodyEnd = bodyStart + length;
  }
  const body = data.subarray(bodyStart, bodyEnd);

  const response = /^SIP\/2\.0 (\d{3}) ?(.*)$/.exec(start);
  if (response) {
    const status = Number(response[1]);
    if (status < 100 || status > 699) return { ok: false, error: "bad status" };
    const message: SipResponse = { kind: "response", status, reason: response[2] ?? "", headers, body };
    return hasRequired(headers) ? { ok: true, message } : { ok: false, error: "missing required header" };
  }
  const request = /^([A-Za-z0-9.!%*_+`'~-]+) (\S+) SIP\/2\.0$/.exec(start);
  if (!request) return { ok: false, error: "bad start line" };
  const message: SipRequest = { kind: "request", method: request[1]!, uri: request[2]!, headers, body };
  if (!hasRequired(headers)) return { ok: false, error: "missing required header", request: message };
  const cseq = parseCSeq(headerValue(headers, "cseq")!);
  if (!cseq || cseq.method !== message.method) return { ok: false, error: "bad CSeq", request: message };
  if (!/^sips?:/i.test(message.uri)) return { ok: false, error: "unsupported URI scheme", request: message };
  return { ok: true, message };
}

function failWith(start: string, headers: Headers, error: string): ParseResult {
  const request = /^([A-Za-z0-9.!%*_+`'~-]+) (\S+) SIP\/2\.0$/.exec(start);
  if (!request) return { ok: false, error };
  return { ok: false, error, request: { kind: "request", method: request[1]!, uri: request[2]!, headers, body: Buffer.alloc(0) } };
}

function hasRequired(headers: Headers): boolean {
  return REQUIRED.every((name) => headers.some(([n]) => n === name));
}

/** Whether a 400 can be built for this broken request: it must say where the answer goes. */
export const canAnswer = (request: SipRequest) => hasRequired(request.headers) && request.method !== "ACK";

export function headerValue(headers: Headers, name: string): string | undefined {
  return headers.find(([n]) => n === name)?.[1];
}

/** Every value of a header that may be repeated or comma-joined (Via, Route, Record-Route). */
export function headerValues(headers: Headers, name: string): string[] {
  return headers.filter(([n]) => n === name).flatMap(([, v]) => splitList(v));
}

/** Splits a comma list, leaving commas inside quotes and <...> alone. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let from = 0;
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '"' && value[i - 1] !== "\\") quoted = !quoted;
    else if (!quoted && ch === "<") depth += 1;
    else if (!quoted && ch === ">") depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && ch === ",") {
      out.push(value.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(value.slice(from).trim());
  return out.filter((v) => v.length > 0);
}

export function parseCSeq(value: string): { seq: number; method: string } | null {
  const m = /^(\d{1,10})\s+([A-Za-z0-9.!%*_+`'~-]+)$/.exec(value.trim());
  if (!m) return null;
  const seq = Number(m[1]);
  return seq < 2 ** 31 ? { seq, method: m[2]! } : null;
}

export function serialize(message: SipMessage): Buffer {
  const start = message.kind === "request" ? `${message.method} ${message.uri} SIP/2.0` : `SIP/2.0 ${message.status} ${message.reason}`;
  const lines = [start];
  for (const [name, value] of message.headers) if (name !== "content-length") lines.push(`${canonicalName(name)}: ${value}`);
  lines.push(`Content-Length: ${message.body.length}`, "", "");
  return Buffer.concat([Buffer.from(lines.join("\r\n"), "latin1"), message.body]);
}

/** Reason phrases for the answers we give (RFC 3261 §21). */
export const REASONS: Record<number, string> = {
  100: "Trying", 180: "Ringing", 183: "Session Progress", 200: "OK", 400: "Bad Request", 401: "Unauthorized",
  403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 407: "Proxy Authentication Required",
  408: "Request Timeout", 415: "Unsupported Media Type", 416: "Unsupported URI Scheme", 420: "Bad Extension",
  480: "Temporarily Unavailable", 481: "Call/Transaction Does Not Exist", 482: "Loop Detected",
  483: "Too Many Hops", 486: "Busy Here", 487: "Request Terminated", 488: "Not Acceptable Here",
  491: "Request Pending", 500: "Server Internal Error", 501: "Not Implemented", 503: "Service Unavailable",
  513: "Message Too Large", 603: "Decline",
};

/**
 * A response to `request` (§8.2.6): Via, From, Call-ID and CSeq copied, To copied with `toTag`
 * added when it has none.
 */
export function responseTo(request: SipRequest, status: number, options: { toTag?: string; headers?: Headers; body?: Buffer; reason?: string } = {}): SipResponse {
  const headers: Headers = [];
  for (const [name, value] of request.headers) {
    if (name === "via" || name === "from" || name === "call-id" || name === "cseq") headers.push([name, value]);
    else if (name === "to") headers.push([name, options.toTag && !/;\s*tag=/i.test(value) ? `${value};tag=${options.toTag}` : value]);
    else if (name === "record-route" && status > 100 && status < 300) headers.push([name, value]);
  }
  headers.push(...(options.headers ?? []));
  return { kind: "response", status, reason: options.reason ?? REASONS[status] ?? "Unknown", headers, body: options.body ?? Buffer.alloc(0) };
}
