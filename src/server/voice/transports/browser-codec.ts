/**
 * The wire codec of the Test Call panel's socket (src/shared/calls.ts): binary frames are
 * PCM16 LE 24 kHz audio, text frames JSON control messages. Parsed once here; the transport
 * only dispatches.
 */
import { clientMessageSchema, type ClientMessage, type ServerMessage } from "../../../shared/calls.ts";

export type BrowserFrame = { kind: "audio"; audio: Buffer } | { kind: "control"; message: ClientMessage } | { kind: "invalid" };

export function decodeBrowserFrame(data: Buffer, isBinary: boolean): BrowserFrame {
  if (isBinary) return { kind: "audio", audio: data };
  let json: unknown;
  try {
    json = JSON.parse(data.toString("utf8"));
  } catch {
    return { kind: "invalid" };
  }
  const parsed = clientMessageSchema.safeParse(json);
  return parsed.success ? { kind: "control", message: parsed.data } : { kind: "invalid" };
}

export function encodeServerMessage(message: ServerMessage): string {
  return JSON.stringify(message);
}

export const INVALID_MESSAGE: ServerMessage = { type: "error", message: "Invalid message" };
