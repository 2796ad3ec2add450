/**
 * Twilio's side of answering a call, for the bench callers: the signed voice webhook, then the
 * media stream its TwiML names, opened with `connected` and `start` (µ-law, 8 kHz).
 */
import twilio from "twilio";
import WebSocket from "ws";
import type { CallerTarget } from "./bench-calls-shared.ts";

/** The webhook answered with a polite message and a hang-up (the instance was full). */
export class Refused extends Error {}

export interface StreamIds {
  callSid: string;
  streamSid: string;
}

/** The caller hangs up: Twilio's `stop` on the stream, then the socket closed. */
export function hangUpStream(ws: WebSocket, ids: StreamIds): void {
  ws.send(JSON.stringify({ event: "stop", streamSid: ids.streamSid, stop: { callSid: ids.callSid } }));
  ws.close(1000);
}

/** Dials `target` and returns the open media socket, its listeners attached by `wire` before it opens. */
export async function dialTwilioStream(target: CallerTarget, ids: StreamIds, wire: (ws: WebSocket) => void): Promise<WebSocket> {
  const params = { AccountSid: `AC${"0".repeat(32)}`, CallSid: ids.callSid, CallStatus: "ringing", Direction: "inbound", From: "+15559876", To: target.to };
  let url = `${target.origin}/telephony/twilio/voice`;
  let res: Response;
  let twiml: string;
  // Twilio follows a <Redirect> (an instance with room elsewhere) with the same call's parameters, signed anew.
  for (let hops = 0; ; hops++) {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": twilio.getExpectedTwilioSignature(target.authToken, url, params) },
      body: new URLSearchParams(params).toString(),
    });
    twiml = await res.text();
    const redirect = /<Redirect[^>]*>([^<]+)<\/Redirect>/.exec(twiml)?.[1];
    if (!redirect || hops >= 3) break;
    url = redirect.replace(/&amp;/g, "&");
  }
  const token = /<Parameter name="token" value="([^"]+)"/.exec(twiml)?.[1];
  const streamUrl = /<Stream url="([^"]+)"/.exec(twiml)?.[1];
  if (!streamUrl && /<Say>[^<]+<\/Say><Hangup\/>/.test(twiml)) throw new Refused();
  if (!token || !streamUrl) throw new Error(`webhook ${res.status}: ${twiml.slice(0, 200)}`);
  const ws = new WebSocket(streamUrl, { headers: { "x-twilio-signature": twilio.getExpectedTwilioSignature(target.authToken, streamUrl, {}) } });
  wire(ws);
  ws.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  ws.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }));
  ws.send(
    JSON.stringify({
      event: "start",
      sequenceNumber: "1",
      streamSid: ids.streamSid,
      start: { streamSid: ids.streamSid, callSid: ids.callSid, tracks: ["inbound"], customParameters: { token }, mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 } },
    }),
  );
  return ws;
}
