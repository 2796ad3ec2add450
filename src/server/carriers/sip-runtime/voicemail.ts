/**
 * An answering machine on a call we placed over SIP, handled as the Twilio path handles Twilio's
 * verdict (twilio/outbound-calls.ts): the assistant talks from the answer while the callee's
 * audio is watched (answering-machine.ts). Every verdict is written to the record (`answered_by`,
 * Twilio's words). A person, or nobody saying anything: the call goes on. A machine: the
 * assistant falls silent at once (it would be talking into the recording), and when the
 * greeting's end is found the session ends and the call either hangs up or says the assistant's
 * voicemail message, placeholders filled, in the assistant's voice, then hangs up. The record
 * ends "Voicemail" either way, and so does one where the machine hangs up first.
 */
import type { FastifyBaseLogger } from "fastify";
import type { Voicemail } from "../../../shared/assistants.ts";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import { fillPlaceholders, type CallVariables } from "../../../shared/variables.ts";
import type { Db } from "../../db/client.ts";
import * as outboundRepo from "../../modules/outbound/outbound.repo.ts";
import type { CallSession } from "../../voice/call-session.ts";
import type { SipCall } from "../sip/call.ts";
import type { SipCallTransport } from "../sip/call-transport.ts";
import { mulawToAlaw } from "../sip/g711.ts";
import { AMD, AnsweringMachineDetector, type Verdict } from "./answering-machine.ts";

export interface MachineWatch {
  call: SipCall;
  transport: SipCallTransport;
  session: Pick<CallSession, "close">;
  recordId: string;
  voicemail: NonNullable<Voicemail>;
  variables: CallVariables;
  db: Db;
  logger: FastifyBaseLogger;
  /** The message in the assistant's voice, µ-law 8 kHz. */
  speak(text: string, signal: AbortSignal): Promise<Buffer>;
}

/** A detection that heard nothing at all (no RTP) still ends, a little after the audio's own limit. */
const WALL_CLOCK_SLACK_MS = 5000;
/** After the message's last frame went out: time for it to be played and recorded before our BYE. */
const MESSAGE_TAIL_MS = 300;

export function watchForMachine(w: MachineWatch): void {
  const log = w.logger.child({ amd: true });
  const detector = new AnsweringMachineDetector((answeredBy) => void verdict(answeredBy).catch((err: unknown) => log.error({ err }, "acting on the answering-machine verdict failed")));
  const untap = w.transport.tap((audio) => detector.push(audio));
  const timer = setTimeout(() => detector.timeout(), AMD.timeoutMs + WALL_CLOCK_SLACK_MS);
  const stop = () => {
    clearTimeout(timer);
    untap();
  };
  w.call.once("ended", stop);

  // The message is made while the greeting plays, so it is ready at the beep.
  let message: Promise<Buffer | null> | null = null;
  const abort = new AbortController();
  w.call.once("ended", () => abort.abort());

  async function verdict(answeredBy: Verdict) {
    if (answeredBy !== "machine_start") stop();
    if (w.call.state === "ended") return;
    await outboundRepo.setAnsweredBy(w.db, w.recordId, answeredBy);
    log.info({ answeredBy }, "answering-machine detection");
    if (answeredBy === "machine_start") {
      w.transport.suspend();
      if (w.voicemail.action === "leave_message" && w.voicemail.message) message = speak(fillPlaceholders(w.voicemail.message, w.variables));
      return;
    }
    if (!answeredBy.startsWith("machine")) return;
    // The call is ours now: the session's end must not hang it up before the message is said.
    w.transport.release();
    const closing = w.session.close(OUTBOUND_ENDED.voicemail);
    const audio = await message;
    if (audio) await play(audio);
    w.call.hangup();
    await closing;
  }

  function speak(text: string): Promise<Buffer | null> {
    return w.speak(text, abort.signal).catch((err: unknown) => {
      if (!abort.signal.aborted) log.warn({ err }, "the voicemail message could not be spoken; hanging up");
      return null;
    });
  }

  /** Plays the message and resolves once it has all gone out (or the machine hung up). */
  async function play(audio: Buffer) {
    const rtp = w.call.rtp;
    if (!audio.length || !rtp || w.call.state === "ended") return;
    await new Promise<void>((resolve) => {
      let played = 0;
      rtp.on({
        played: (tag, bytes) => {
          if (tag !== "voicemail") return;
          played += bytes;
          if (played >= audio.length) setTimeout(resolve, MESSAGE_TAIL_MS);
        },
      });
      w.call.once("ended", () => resolve());
      rtp.clear();
      rtp.play(rtp.codec === "PCMA" ? Buffer.from(mulawToAlaw(audio)) : audio, "voicemail");
    });
  }
}
