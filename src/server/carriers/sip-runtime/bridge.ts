/**
 * Two answered SIP calls joined through this server: the caller and the person a transfer put
 * them through to. Each side's audio, once out of its jitter buffer, is queued on the other's RTP
 * session and leaves on that session's own 20 ms clock, with its own SSRC, sequence numbers and
 * timestamps (so each phone sees one steady stream, whatever the other side's packets did); A-law
 * and µ-law are converted when the two sides agreed different codecs. Keys pressed on one side are
 * sent to the other as RFC 4733 events. When either side hangs up, the other gets a BYE.
 */
import type { CarriedCall, LiveCalls } from "../../modules/calls/live-calls.ts";
import type { SipCall } from "../sip/call.ts";
import { alawToMulaw, mulawToAlaw } from "../sip/g711.ts";
import type { Codec } from "../sip/sdp.ts";

/**
 * Audio queued for a side beyond this is dropped: a far end whose clock runs a little fast must
 * not build up a delay that grows for the whole conversation.
 */
const MAX_LAG_MS = 120;

function convert(payload: Buffer, from: Codec, to: Codec): Buffer {
  if (from === to) return payload;
  return Buffer.from(from === "PCMA" ? alawToMulaw(payload) : mulawToAlaw(payload));
}

export interface Bridge {
  /** Settles once both calls have ended. */
  ended: Promise<void>;
}

export function bridgeCalls(a: SipCall, b: SipCall): Bridge {
  relay(a, b);
  relay(b, a);
  const ended = Promise.all([a, b].map((call) => (call.state === "ended" ? Promise.resolve() : new Promise<void>((resolve) => call.once("ended", () => resolve())))));
  a.once("ended", () => b.hangup());
  b.once("ended", () => a.hangup());
  if (a.state === "ended") b.hangup();
  if (b.state === "ended") a.hangup();
  return { ended: ended.then(() => undefined) };
}

/** What `from` sends reaches `to`. */
function relay(from: SipCall, to: SipCall) {
  from.rtp?.on({
    audio: (payload) => {
      const out = to.rtp;
      if (!out || out.queuedMs > MAX_LAG_MS) return;
      out.play(convert(payload, from.plan?.codec ?? "PCMU", to.plan?.codec ?? "PCMU"));
    },
    digit: (digit) => void to.rtp?.sendDigit(digit),
  });
}

/**
 * The bridges this instance carries: a planned stop waits for them as for live calls (drain), and
 * each takes a place among the instance's calls (MAX_CALLS) until it ends.
 */
export class Bridges {
  private readonly live = new Set<Promise<void>>();

  constructor(private readonly places?: Pick<LiveCalls, "carry">) {}

  /** Keeps `bridge` until it ends; `board`: its line on the live board meanwhile. */
  add(bridge: Bridge, board?: CarriedCall): void {
    const ended = bridge.ended.finally(() => this.live.delete(ended));
    this.live.add(ended);
    this.places?.carry(ended, board);
  }

  get size(): number {
    return this.live.size;
  }

  async idle(): Promise<void> {
    while (this.live.size > 0) await Promise.allSettled(this.live);
  }
}
