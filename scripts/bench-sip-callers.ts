/**
 * Child process of `npm run bench:sip`: N SIP callers of our own (carriers/sip as a UAC on
 * 127.0.0.1), all dialling at once. Each streams a µ-law tone both ways' worth of RTP for the
 * sitting and notes what it receives: when the first non-silent frame arrives after its ACK
 * went out (first audio), and the interval between consecutive RTP packets (the server's send
 * clock as a caller's phone sees it).
 */
import { performance } from "node:perf_hooks";
import { SipEndpoint } from "../src/server/carriers/sip/endpoint.ts";
import { pcm16ToMulaw } from "../src/server/voice/audio.ts";
import { nextMessage, send, summarize, type Summary } from "./bench-voice-shared.ts";

export type SipCallersRequest = { type: "start"; uri: string; calls: number; seconds: number } | { type: "end" };
export type SipCallersMessage =
  | { type: "up"; answered: number; refused: number; statuses: Record<string, number> }
  | { type: "report"; firstAudio: Summary; interval: Summary; packets: number };

const start = await nextMessage<SipCallersRequest, "start">(process, "start");
const endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 30000, max: 39999 } } });
const tone = Buffer.from(pcm16ToMulaw(Int16Array.from({ length: 8000 * (start.seconds + 10) }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 8000)))));

const firstAudio: number[] = [];
const intervals: number[] = [];
const statuses: Record<string, number> = {};
let answered = 0;
let refused = 0;
const placed = await Promise.all(
  Array.from({ length: start.calls }, async () => {
    const call = await endpoint.call({ uri: start.uri, fromUser: "+15557654321" });
    return new Promise<typeof call | null>((resolve) => {
      call.once("ended", (reason, status) => {
        if (call.state !== "confirmed" && answered + refused < start.calls) {
          refused += 1;
          statuses[`${status ?? reason}`] = (statuses[`${status ?? reason}`] ?? 0) + 1;
          resolve(null);
        }
      });
      call.once("answered", () => {
        answered += 1;
        const ackAt = performance.now();
        let last = 0;
        let heard = false;
        call.rtp!.on({
          audio: (payload) => {
            const now = performance.now();
            if (last) intervals.push(now - last);
            last = now;
            if (!heard && payload.some((b) => b !== 0xff && b !== 0x7f)) {
              heard = true;
              firstAudio.push(now - ackAt);
            }
          },
        });
        call.rtp!.play(tone);
        resolve(call);
      });
    });
  }),
);
send<SipCallersMessage>(process, { type: "up", answered, refused, statuses });
await nextMessage<SipCallersRequest, "end">(process, "end");
for (const call of placed) call?.hangup();
send<SipCallersMessage>(process, { type: "report", firstAudio: summarize(firstAudio), interval: summarize(intervals), packets: intervals.length });
await new Promise((r) => setTimeout(r, 500));
await endpoint.close();
process.exit(0);
