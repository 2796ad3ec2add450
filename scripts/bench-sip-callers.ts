/**
 * Child process of `npm run bench:sip`: N SIP callers of our own (carriers/sip as a UAC on
 * 127.0.0.1), all dialling at once. Each streams a µ-law tone both ways' worth of RTP for the
 * sitting and notes what it receives: when the first non-silent frame arrives after its ACK
 * went out (first audio), and the interval between consecutive RTP packets (the server's send
 * clock as a caller's phone sees it). A call refused is counted by its status, with how long the
 * refusal took. At the end every caller hangs up and waits for its BYE to be answered (or for
 * Timer F): leaving sooner would leave calls up on the server whose BYE was lost.
 */
import { performance } from "node:perf_hooks";
import { SipEndpoint } from "../src/server/carriers/sip/endpoint.ts";
import type { SipCall } from "../src/server/carriers/sip/call.ts";
import { pcm16ToMulaw } from "../src/server/voice/audio.ts";
import { nextMessage, send, summarize, type Summary } from "./bench-voice-shared.ts";

export type SipCallersRequest = { type: "start"; uri: string; calls: number; seconds: number } | { type: "end" };
export type SipCallersMessage =
  | { type: "up"; answered: number; refused: number; statuses: Record<string, number>; refusedAfter: Summary }
  | { type: "report"; firstAudio: Summary; interval: Summary; packets: number; byesAnswered: number; byesUnanswered: number };

/** Timer F (64·T1) and a little: no BYE transaction lasts longer. */
const BYE_WAIT_MS = 40_000;

const start = await nextMessage<SipCallersRequest, "start">(process, "start");
const endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 30000, max: 39999 } } });
const tone = Buffer.from(pcm16ToMulaw(Int16Array.from({ length: 8000 * (start.seconds + 10) }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 8000)))));

const firstAudio: number[] = [];
const intervals: number[] = [];
const refusedAfter: number[] = [];
const statuses: Record<string, number> = {};
const answeredCalls = new Set<SipCall>();
let answered = 0;
let refused = 0;
const refuse = (what: string, since: number) => {
  refused += 1;
  statuses[what] = (statuses[what] ?? 0) + 1;
  refusedAfter.push(performance.now() - since);
};

async function dial(): Promise<SipCall | null> {
  const since = performance.now();
  let call: SipCall;
  try {
    call = await endpoint.call({ uri: start.uri, fromUser: "+15557654321" });
  } catch (err) {
    // e.g. no free RTP port on our side: counted, not fatal to the sitting.
    refuse(`error: ${(err as Error).message}`, since);
    return null;
  }
  return new Promise((resolve) => {
    call.once("ended", (reason, status) => {
      if (answeredCalls.has(call)) return; // hung up later: not a refusal
      refuse(String(status ?? reason), since);
      resolve(null);
    });
    call.once("answered", () => {
      answered += 1;
      answeredCalls.add(call);
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
}

const placed = await Promise.all(Array.from({ length: start.calls }, dial));
send<SipCallersMessage>(process, { type: "up", answered, refused, statuses, refusedAfter: summarize(refusedAfter) });
await nextMessage<SipCallersRequest, "end">(process, "end", 600_000);
const report = { firstAudio: summarize(firstAudio), interval: summarize(intervals), packets: intervals.length };
let byesAnswered = 0;
const up = placed.filter((call): call is SipCall => call !== null);
await Promise.race([
  Promise.all(up.map((call) => call.hungUp().then((answered) => void (byesAnswered += answered ? 1 : 0)))),
  new Promise((resolve) => setTimeout(resolve, BYE_WAIT_MS)),
]);
send<SipCallersMessage>(process, { type: "report", ...report, byesAnswered, byesUnanswered: up.length - byesAnswered });
await new Promise((r) => setTimeout(r, 200));
await endpoint.close();
process.exit(0);
