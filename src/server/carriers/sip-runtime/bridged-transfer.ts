/**
 * A transfer that puts the caller through itself, as Twilio's `<Dial>` does on the Twilio path:
 * the destination is called through the call's trunk (its credentials, its caller ID) while the
 * caller hears ringing; whoever answers first hears the briefing in the assistant's voice, then
 * the two calls are bridged here (bridge.ts) and the assistant's session ends. The briefing is
 * made while the destination rings, so it is ready when they answer.
 *
 * Not answered, busy, refused, or hung up during the briefing: the transfer rejects with what
 * happened, the caller's call goes back to the assistant (which tells them), as after a Twilio
 * transfer nobody took. The caller hanging up meanwhile cancels the call to the destination.
 */
import type { FastifyBaseLogger } from "fastify";
import { TRANSFER_RING_S } from "../../voice/builtins.ts";
import type { SipCall } from "../sip/call.ts";
import type { SipCallTransport } from "../sip/call-transport.ts";
import type { SipEndReason } from "../sip/end-reasons.ts";
import { mulawToAlaw } from "../sip/g711.ts";
import { bridgeCalls, type Bridge } from "./bridge.ts";
import { playRingback } from "./ringback.ts";

/** How long the person who answered waits for the briefing's audio before being put through without it. */
export const BRIEFING_WAIT_MS = 10_000;

export interface BridgeDialer {
  /** Calls `uri` through the trunk; the runtime tracks the call (shutdown ends it). */
  dial(uri: string): Promise<SipCall>;
  /** The briefing in the assistant's voice, µ-law 8 kHz. */
  speak(text: string, signal: AbortSignal): Promise<Buffer>;
  logger: FastifyBaseLogger;
  /** How long the destination may ring (tests shorten it). */
  ringMs?: number;
}

/** Why the destination did not take the call, in the transcript's words. */
export function notTakenReason(reason: SipEndReason | "rang-out", status?: number): string {
  const sip = status ? ` (SIP ${status})` : "";
  switch (reason) {
    case "busy":
      return `the destination was busy${sip}`;
    case "no-answer":
    case "rang-out":
      return `the destination did not answer${sip}`;
    case "unreachable":
    case "timeout":
      return `the destination could not be reached${sip}`;
    case "remote-hangup":
      return "the destination hung up before being put through";
    default:
      return `the destination refused the call${sip}`;
  }
}

class CallerGone extends Error {
  constructor() {
    super("the caller hung up before being put through");
  }
}

/** Resolves when `agent` answers; rejects with why not (its refusal, the ring time, the caller leaving). */
function answered(agent: SipCall, caller: SipCall, ringMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      agent.off("answered", onAnswer);
      agent.off("ended", onEnd);
      caller.off("ended", onCallerGone);
      if (err) reject(err);
      else resolve();
    };
    const onAnswer = () => done();
    const onEnd = (reason: SipEndReason, status?: number) => done(new Error(notTakenReason(reason, status)));
    const onCallerGone = () => done(new CallerGone());
    const timer = setTimeout(() => done(new Error(notTakenReason("rang-out"))), ringMs);
    if (caller.state === "ended") return done(new CallerGone());
    if (agent.state === "confirmed") return done();
    if (agent.state === "ended") return done(new Error(notTakenReason(agent.endReason ?? "unreachable")));
    agent.once("answered", onAnswer);
    agent.once("ended", onEnd);
    caller.once("ended", onCallerGone);
  });
}

/** Plays the briefing to `agent` and resolves once it has all gone out; rejects when either side hangs up meanwhile. */
function brief(agent: SipCall, caller: SipCall, briefing: Promise<Buffer | null>): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let queued = 0;
    let played = 0;
    let finished = false;
    const done = (err?: Error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      agent.off("ended", onAgentGone);
      caller.off("ended", onCallerGone);
      if (err) reject(err);
      else resolve();
    };
    const onAgentGone = () => done(new Error(notTakenReason("remote-hangup")));
    const onCallerGone = () => done(new CallerGone());
    const timer = setTimeout(() => done(), BRIEFING_WAIT_MS);
    if (caller.state === "ended") return done(new CallerGone());
    if (agent.state === "ended") return onAgentGone();
    agent.once("ended", onAgentGone);
    caller.once("ended", onCallerGone);
    // What the person says during the briefing is not passed on: the caller is not there yet.
    agent.rtp?.on({
      played: (_tag, bytes) => {
        played += bytes;
        if (played >= queued) done();
      },
    });
    void briefing.then((audio) => {
      if (finished) return;
      clearTimeout(timer);
      if (!audio || audio.length === 0 || !agent.rtp) return done();
      queued = audio.length;
      agent.rtp.play(agent.rtp.codec === "PCMA" ? Buffer.from(mulawToAlaw(audio)) : audio, "briefing");
    });
  });
}

/**
 * Calls `target`, briefs whoever answers with `summary`, and bridges the caller to them. Resolves
 * with the bridge (the session may then end: the call is the bridge's); rejects with why not, the
 * call handed back to the session.
 */
export async function bridgeTransfer(caller: SipCall, transport: SipCallTransport, target: string, summary: string, deps: BridgeDialer): Promise<Bridge> {
  if (caller.state !== "confirmed" || !caller.rtp) throw new CallerGone();
  transport.suspend();
  // While it rings, what the caller says and presses goes nowhere: the assistant has said its goodbye.
  caller.rtp.on({});
  const stopRinging = playRingback(caller.rtp);
  const abort = new AbortController();
  const briefing = deps.speak(summary, abort.signal).catch((err: unknown) => {
    deps.logger.warn({ err }, "the transfer's briefing could not be spoken; the person is put through without it");
    return null;
  });
  let agent = null as SipCall | null;
  try {
    try {
      agent = await deps.dial(target);
    } catch {
      throw new Error(notTakenReason("unreachable"));
    }
    await answered(agent, caller, deps.ringMs ?? TRANSFER_RING_S * 1000);
    await brief(agent, caller, briefing);
  } catch (err) {
    abort.abort();
    agent?.hangup();
    stopRinging();
    if (caller.state === "confirmed") transport.resume();
    throw err;
  }
  stopRinging();
  transport.release();
  return bridgeCalls(caller, agent);
}
