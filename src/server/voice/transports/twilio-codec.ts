/**
 * Twilio Media Streams wire messages (protocols §3.4–3.5): parsed once at the
 * edge with zod, built here for the way back. Always JSON text frames (a binary frame is
 * Twilio error 31950). Audio is base64 µ-law 8 kHz, passed through untouched: the caller's
 * `payload` text goes to the provider as it is, the provider's base64 into `media` as it is.
 */
import { z } from "zod";
import { wireBase64, type WireAudio } from "../audio.ts";

const startSchema = z.looseObject({
  streamSid: z.string().min(1),
  callSid: z.string().min(1),
  accountSid: z.string().optional(),
  customParameters: z.record(z.string(), z.string()).optional().default({}),
  mediaFormat: z.looseObject({ encoding: z.string(), sampleRate: z.number(), channels: z.number() }).optional(),
});

export const twilioInboundSchema = z.discriminatedUnion("event", [
  z.looseObject({ event: z.literal("connected") }),
  z.looseObject({ event: z.literal("start"), streamSid: z.string().optional(), start: startSchema }),
  z.looseObject({
    event: z.literal("media"),
    media: z.looseObject({ payload: z.string(), timestamp: z.string().optional(), track: z.string().optional() }),
  }),
  z.looseObject({ event: z.literal("mark"), mark: z.looseObject({ name: z.string() }) }),
  z.looseObject({ event: z.literal("dtmf"), dtmf: z.looseObject({ digit: z.string() }) }),
  z.looseObject({ event: z.literal("stop") }),
]);
export type TwilioInbound = z.infer<typeof twilioInboundSchema>;
export type TwilioStart = z.infer<typeof startSchema>;

/** A Twilio frame, or null when it is not one we understand (Twilio may add events: never fail on them). */
export function decodeTwilioFrame(data: Buffer | string): TwilioInbound | null {
  let json: unknown;
  try {
    json = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch {
    return null;
  }
  // Media and marks are 50+ frames a second per call: checked by hand, the same rules as the
  // schema (a schema parse per frame costs more than everything else the frame needs).
  if (typeof json === "object" && json !== null) {
    const frame = json as { event?: unknown; media?: { payload?: unknown; track?: unknown }; mark?: { name?: unknown } };
    if (frame.event === "media" && typeof frame.media?.payload === "string" && (frame.media.track === undefined || typeof frame.media.track === "string")) {
      return frame as TwilioInbound;
    }
    if (frame.event === "mark" && typeof frame.mark?.name === "string") return frame as TwilioInbound;
  }
  const parsed = twilioInboundSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** A stream's sid as JSON text: quoted once when the stream starts, not in every message sent on it. */
export type StreamSidJson = string & { readonly quoted: unique symbol };
export const streamSidJson = (streamSid: string) => JSON.stringify(streamSid) as StreamSidJson;

/**
 * `audio` as base64 goes into the JSON unescaped: text from the provider is checked to be
 * base64 where it is parsed (realtime-protocol.ts), bytes are encoded here.
 */
export function encodeMedia(streamSid: StreamSidJson, audio: WireAudio): string {
  return `{"event":"media","streamSid":${streamSid},"media":{"payload":"${wireBase64(audio)}"}}`;
}

export function encodeMark(streamSid: StreamSidJson, name: string): string {
  return `{"event":"mark","streamSid":${streamSid},"mark":{"name":${JSON.stringify(name)}}}`;
}

export function encodeClear(streamSid: StreamSidJson): string {
  return `{"event":"clear","streamSid":${streamSid}}`;
}

/** The `<Parameter>` carrying the per-call stream token. */
export const STREAM_TOKEN_PARAMETER = "token";
