/**
 * The live board's hold on one call (docs/decisions/032-live-board.md). Owned by the
 * CallSession, which feeds it (transcript changes, audio taps) and carries out what it asks
 * (`SupervisedCall`); the board's sockets talk only to this object. Its jobs, one file each:
 *
 * - the summary for the board and the "stuck" rules, pushed at most every 250 ms per call
 *   (supervision-summary.ts);
 * - what supervisors hear: mixed only while someone listens or has taken over
 *   (supervision-listening.ts over supervision-audio.ts);
 * - the supervisors themselves, here: watchers get transcript changes as the test call socket
 *   sends them, control changes and `ended`; their commands (listen, guide, end) and the
 *   take-over — the assistant is silenced (barge-in, answers off), the controller's microphone
 *   goes to the caller, the caller to the controller; hand back (or the controller leaving)
 *   turns answers on again with the supervisor's part as context.
 */
import type { SupervisorAction } from "../../shared/calls.ts";
import { LIVE_TEXTS, type CallServerMessage, type LiveCallSummary, type SupervisorControl, type SupervisorMessage } from "../../shared/live.ts";
import { pcm16FromBytes } from "./audio.ts";
import { SpeechDetector } from "./supervision-audio.ts";
import { ListeningTaps } from "./supervision-listening.ts";
import type { CallFacts, SupervisedCall, Watcher } from "./supervision-seams.ts";
import { SummaryFacts, SummaryPace } from "./supervision-summary.ts";
import type { TranscriptChange } from "./transcript.ts";

export type { CallFacts, SupervisedCall, Watcher } from "./supervision-seams.ts";
export { SUMMARY_INTERVAL_MS } from "./supervision-summary.ts";

/** The board side (the LiveCalls registry): summaries of this call, and its end. */
/** Whose call a board change is about: a session's supervision, or a call carried without one (a bridged transfer). */
export type BoardEntry = Pick<CallSupervision, "organizationId" | "callId">;

export interface SupervisionListener {
  changed(entry: BoardEntry, summary: LiveCallSummary): void;
  removed(entry: BoardEntry): void;
}

interface TakeOver {
  watcher: Watcher;
  since: number;
  detector: SpeechDetector;
}

export class CallSupervision {
  callId: string | null = null;
  private startedAt = 0;
  private ended = false;
  private readonly watchers = new Map<Watcher, { listening: boolean }>();
  private readonly listeners = new Set<SupervisionListener>();
  private takeOver: TakeOver | null = null;
  private readonly said: SummaryFacts;
  private readonly pace: SummaryPace;
  private readonly taps: ListeningTaps;

  constructor(
    readonly facts: CallFacts,
    private readonly call: SupervisedCall,
    private readonly now: () => number = Date.now,
  ) {
    this.said = new SummaryFacts(now, () => this.summaryChanged());
    this.pace = new SummaryPace(now, () => this.pushSummary());
    this.taps = new ListeningTaps(facts.sampleRate, { watchers: () => this.watchers, controller: () => this.takeOver?.watcher });
  }

  get organizationId(): string {
    return this.facts.organizationId;
  }

  /** On the board once the call has a record. */
  get isLive(): boolean {
    return this.callId !== null && !this.ended;
  }

  /** Someone listens or has taken over: only then does the call's audio need decoding for the board. */
  get hearsAudio(): boolean {
    return this.taps.active;
  }

  /** False while a supervisor has taken over: the assistant must not answer. */
  get assistantAnswers(): boolean {
    return this.takeOver === null;
  }

  subscribe(listener: SupervisionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // -------------------------------------------------------------------------
  // Fed by the session

  /** The record exists: the call goes on the board. */
  begin(callId: string, startedAt: number): void {
    if (this.ended) return;
    this.callId = callId;
    this.startedAt = startedAt;
    this.said.spoke();
    this.pace.flush();
  }

  transcriptChanged(change: TranscriptChange): void {
    if (this.ended) return;
    if (this.watchers.size > 0) {
      const message: CallServerMessage =
        change.kind === "set" ? { type: "transcript", index: change.index, entry: change.entry } : { type: "transcript_delta", index: change.index, text: change.text };
      for (const watcher of this.watchers.keys()) watcher.send(message);
    }
    if (this.said.observe(change)) this.summaryChanged();
  }

  /** Caller audio (PCM16), as received. */
  callerAudio(samples: Int16Array): void {
    this.taps.caller(samples);
  }

  /** Assistant audio (PCM16) the caller was sent. */
  assistantAudio(samples: Int16Array): void {
    this.taps.heard(samples);
  }

  /** Barge-in: the caller's queue was flushed. */
  playbackCleared(): void {
    this.taps.cleared();
  }

  /** The call ended: watchers get `ended`, the board drops it. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.said.stop();
    this.pace.stop();
    this.taps.stop();
    const callId = this.callId;
    for (const watcher of this.watchers.keys()) {
      if (callId) watcher.send({ type: "ended", callId, reason });
      watcher.close();
    }
    this.watchers.clear();
    if (callId) for (const listener of this.listeners) listener.removed(this);
    this.listeners.clear();
  }

  // -------------------------------------------------------------------------
  // The board

  summary(): LiveCallSummary {
    const { assistant, kind, callerNumber, calledNumber } = this.facts;
    return {
      callId: this.callId ?? "",
      assistant,
      kind,
      callerNumber,
      calledNumber,
      startedAt: new Date(this.startedAt).toISOString(),
      lastSaid: this.said.lastSaid,
      stuck: this.said.stuck(),
      takenOverBy: this.takeOver?.watcher.name ?? null,
      watchers: this.watchers.size,
      bridgedTo: null,
    };
  }

  private summaryChanged(): void {
    if (this.isLive) this.pace.changed();
  }

  private pushSummary(): void {
    if (!this.isLive) return;
    const call = this.summary();
    for (const watcher of this.watchers.keys()) watcher.send({ type: "call_updated", call });
    for (const listener of this.listeners) listener.changed(this, call);
  }

  // -------------------------------------------------------------------------
  // Supervisors

  join(watcher: Watcher): void {
    if (!this.isLive) {
      watcher.close();
      return;
    }
    this.watchers.set(watcher, { listening: false });
    watcher.send({
      type: "watching",
      call: this.summary(),
      transcript: this.call.transcript(),
      toolsUsed: this.call.toolsUsed(),
      control: this.control(watcher),
      sampleRate: this.facts.sampleRate,
    });
    this.controlChanged(watcher);
    this.summaryChanged();
  }

  leave(watcher: Watcher): void {
    const state = this.watchers.get(watcher);
    if (!state || this.ended) return;
    // A controller who disconnects hands the call back: the caller must not be left alone.
    if (this.takeOver?.watcher === watcher) this.handBack(watcher);
    if (state.listening) this.note(watcher, LIVE_TEXTS.stoppedListening(watcher.name), "stop_listening");
    this.watchers.delete(watcher);
    this.updateAudio();
    this.controlChanged();
    this.summaryChanged();
  }

  command(watcher: Watcher, message: SupervisorMessage): void {
    const state = this.watchers.get(watcher);
    if (!state || this.ended) return;
    switch (message.type) {
      case "listen":
        if (state.listening === message.on) break;
        state.listening = message.on;
        this.note(watcher, message.on ? LIVE_TEXTS.startedListening(watcher.name) : LIVE_TEXTS.stoppedListening(watcher.name), message.on ? "listen" : "stop_listening");
        this.updateAudio();
        break;
      case "guide":
        if (!this.call.instruct(`A supervisor instructs you: ${message.text}\nFollow this instruction for the rest of the call.`)) {
          watcher.send({ type: "error", message: LIVE_TEXTS.notLive });
          return;
        }
        this.note(watcher, LIVE_TEXTS.guide(message.text), "guide");
        return;
      case "take_over": {
        const current = this.takeOver?.watcher;
        if (current && current !== watcher) {
          watcher.send({ type: "error", message: LIVE_TEXTS.alreadyTakenOver(current.name) });
          return;
        }
        if (current) break;
        const detector = new SpeechDetector(this.facts.sampleRate, () => this.note(watcher, LIVE_TEXTS.supervisorSpoke, "spoke"));
        this.takeOver = { watcher, since: this.now(), detector };
        this.call.silence();
        this.note(watcher, LIVE_TEXTS.tookOver(watcher.name), "take_over");
        this.updateAudio();
        this.controlChanged();
        this.summaryChanged();
        return;
      }
      case "hand_back":
        if (this.takeOver?.watcher !== watcher) {
          watcher.send({ type: "error", message: LIVE_TEXTS.notInControl });
          return;
        }
        this.handBack(watcher);
        this.controlChanged();
        this.summaryChanged();
        return;
      case "end_call":
        this.note(watcher, LIVE_TEXTS.endedBy(watcher.name), "end_call");
        this.call.end(LIVE_TEXTS.endedBySupervisor);
        return;
    }
    watcher.send({ type: "control", control: this.control(watcher) });
  }

  /** A binary frame from a supervisor: the controller's voice goes to the caller; anyone else's is dropped. */
  supervisorAudio(watcher: Watcher, bytes: Buffer): void {
    const takeOver = this.takeOver;
    if (this.ended || takeOver?.watcher !== watcher) return;
    const samples = pcm16FromBytes(bytes);
    if (samples.length === 0) return;
    takeOver.detector.push(samples);
    this.call.speak(samples);
    this.taps.heard(samples);
  }

  private handBack(watcher: Watcher): void {
    const takeOver = this.takeOver;
    if (!takeOver) return;
    this.takeOver = null;
    this.note(watcher, LIVE_TEXTS.handedBack(watcher.name), "hand_back");
    const seconds = Math.max(1, Math.round((this.now() - takeOver.since) / 1000));
    const spoke = takeOver.detector.utterances;
    this.call.resume(
      `A human supervisor (${watcher.name}) took over this call for about ${seconds} seconds and talked with the caller directly` +
        ` (${spoke} time${spoke === 1 ? "" : "s"}); their words could not be transcribed.` +
        (this.call.heardCallerWhileSilenced() ? " What the caller said meanwhile is in the conversation." : " You did not hear what the caller said meanwhile either.") +
        " The supervisor has now handed the call back to you: continue the conversation from here, taking all of this into account.",
    );
    this.updateAudio();
  }

  private note(watcher: Watcher, content: string, action: SupervisorAction): void {
    this.call.note(content, { name: watcher.name, action });
    watcher.acted?.(action);
  }

  private control(watcher: Watcher): SupervisorControl {
    return {
      takenOverBy: this.takeOver?.watcher.name ?? null,
      youHaveControl: this.takeOver?.watcher === watcher,
      listening: this.watchers.get(watcher)?.listening ?? false,
      watchers: this.watchers.size,
    };
  }

  /** Every watcher's control (counts and take-over are shared), except `except`, which has it already. */
  private controlChanged(except?: Watcher): void {
    for (const watcher of this.watchers.keys()) if (watcher !== except) watcher.send({ type: "control", control: this.control(watcher) });
  }

  private updateAudio(): void {
    if (this.ended) return;
    this.taps.update(this.takeOver !== null || [...this.watchers.values()].some((state) => state.listening));
  }
}
