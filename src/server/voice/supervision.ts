/**
 * The live board's hold on one call (docs/decisions/032-live-board.md). Owned by the
 * CallSession, which feeds it (transcript changes, audio taps) and carries out what it asks
 * (`SupervisedCall`); the board's sockets talk only to this object.
 *
 * - Summary for the board: who, what, since when, the last thing said, and the "stuck" rules
 *   (src/shared/live.ts STUCK_RULES). Summary changes are pushed at most every 250 ms per call.
 * - Watchers (one per supervisor socket): transcript changes as the test call socket sends
 *   them, control changes, `ended`.
 * - Audio: mixed only while someone listens or has taken over (ListenMixer); nothing is done
 *   per frame otherwise. The same frame buffer goes to every listener.
 * - Take-over: the assistant is silenced (barge-in, answers off); the controller's microphone
 *   goes to the caller, the caller to the controller. Hand back (or the controller leaving)
 *   turns answers on again with the supervisor's part as context.
 */
import type { SupervisorAction, ToolUse, TranscriptEntry } from "../../shared/calls.ts";
import {
  LIVE_TEXTS,
  STUCK_ASSISTANT_TURNS,
  STUCK_SILENCE_MS,
  type CallServerMessage,
  type LiveCallSummary,
  type StuckReason,
  type SupervisorControl,
  type SupervisorMessage,
} from "../../shared/live.ts";
import { pcm16FromBytes } from "./audio.ts";
import { ListenMixer, MIX_FRAME_MS, SpeechDetector } from "./supervision-audio.ts";
import type { TranscriptChange } from "./transcript.ts";

/** Board updates of one call are sent at most this often (≤ 4 a second). */
export const SUMMARY_INTERVAL_MS = 250;
const LAST_SAID_MAX = 200;

export interface CallFacts {
  organizationId: string;
  assistant: { id: string; name: string };
  kind: "test" | "phone";
  callerNumber: string | null;
  calledNumber: string | null;
  /** PCM16 sample rate of both audio directions. */
  sampleRate: number;
}

/** What the session does on a supervisor's behalf (call-session.ts). */
export interface SupervisedCall {
  /** A system item for the assistant; false when it could not be sent. */
  instruct(text: string): boolean;
  /** Stop the assistant at once (as on barge-in) and stop it answering turns. */
  silence(): void;
  /** Answers on again; `context` goes to the assistant as a system item, then a response. */
  resume(context: string): void;
  /** The controller's voice (PCM16 at the call's rate) to the caller, and into the recording. */
  speak(samples: Int16Array): void;
  note(content: string, supervisor: { name: string; action: SupervisorAction }): void;
  end(reason: string): void;
  transcript(): Array<TranscriptEntry | null>;
  toolsUsed(): ToolUse[];
}

/** One supervisor's socket on the call. */
export interface Watcher {
  readonly name: string;
  send(message: CallServerMessage): void;
  audio(frame: Buffer): void;
  /** The call is over (`ended` was sent): close the socket. */
  close(): void;
  /** What this supervisor did, once it took effect (the audit log listens here). */
  acted?(action: SupervisorAction): void;
}

/** The board side (the LiveCalls registry): summaries of this call, and its end. */
export interface SupervisionListener {
  changed(supervision: CallSupervision, summary: LiveCallSummary): void;
  removed(supervision: CallSupervision): void;
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
  private lastSaid: LiveCallSummary["lastSaid"] = null;
  private lastSaidIndex = -1;
  /** Assistant entries since the caller last spoke. */
  private readonly assistantRun = new Set<number>();
  private toolError = false;
  private lastSpokeAt = 0;
  private lastSummaryAt = -Infinity;
  private summaryTimer: NodeJS.Timeout | null = null;
  private silenceTimer: NodeJS.Timeout | null = null;
  private mixer: ListenMixer | null = null;
  private ticker: NodeJS.Timeout | null = null;

  constructor(
    readonly facts: CallFacts,
    private readonly call: SupervisedCall,
    private readonly now: () => number = Date.now,
  ) {}

  get organizationId(): string {
    return this.facts.organizationId;
  }

  /** On the board once the call has a record. */
  get isLive(): boolean {
    return this.callId !== null && !this.ended;
  }

  /** False while a supervisor has taken over: the assistant must not answer. */
  /** Someone listens or has taken over: only then does the call's audio need decoding for the board. */
  get hearsAudio(): boolean {
    return this.mixer !== null;
  }

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
    this.spoke();
    this.flushSummary();
  }

  transcriptChanged(change: TranscriptChange): void {
    if (this.ended) return;
    if (this.watchers.size > 0) {
      const message: CallServerMessage =
        change.kind === "set" ? { type: "transcript", index: change.index, entry: change.entry } : { type: "transcript_delta", index: change.index, text: change.text };
      for (const watcher of this.watchers.keys()) watcher.send(message);
    }
    if (this.observe(change)) this.summaryChanged();
  }

  /** Caller audio (PCM16), as received. */
  callerAudio(samples: Int16Array): void {
    if (!this.mixer) return;
    const frames = this.mixer.caller(samples);
    const controller = this.takeOver?.watcher;
    for (const [watcher, state] of this.watchers) {
      if (watcher === controller) watcher.audio(frames.caller);
      else if (state.listening) watcher.audio(frames.mixed);
    }
  }

  /** Assistant audio (PCM16) the caller was sent. */
  assistantAudio(samples: Int16Array): void {
    this.mixer?.heard(samples);
  }

  /** Barge-in: the caller's queue was flushed. */
  playbackCleared(): void {
    this.mixer?.clear();
  }

  /** The call ended: watchers get `ended`, the board drops it. */
  end(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    for (const timer of [this.summaryTimer, this.silenceTimer, this.ticker]) if (timer) clearTimeout(timer);
    this.mixer = null;
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
      lastSaid: this.lastSaid,
      stuck: this.stuck(),
      takenOverBy: this.takeOver?.watcher.name ?? null,
      watchers: this.watchers.size,
    };
  }

  private stuck(): StuckReason[] {
    const reasons: StuckReason[] = [];
    if (this.assistantRun.size >= STUCK_ASSISTANT_TURNS) reasons.push("assistantTurns");
    if (this.toolError) reasons.push("toolError");
    if (this.now() - this.lastSpokeAt >= STUCK_SILENCE_MS) reasons.push("silence");
    return reasons;
  }

  /** Updates the facts a transcript change touches; true when the summary may have changed. */
  private observe(change: TranscriptChange): boolean {
    if (change.kind === "append") {
      if (change.index === this.lastSaidIndex && this.lastSaid) this.said(this.lastSaid.speaker, this.lastSaid.text + change.text, change.index);
      this.spoke();
      return true;
    }
    const { index, entry } = change;
    switch (entry.type) {
      case "user":
        this.assistantRun.clear();
        if (index >= this.lastSaidIndex) this.said("caller", entry.content, index);
        this.spoke();
        return true;
      case "assistant":
        this.assistantRun.add(index);
        if (index >= this.lastSaidIndex) this.said("assistant", entry.content, index);
        this.spoke();
        return true;
      case "tool-response":
        // The latest tool result decides: a later success clears the badge.
        this.toolError = entry.isError === true;
        return true;
      case "system":
        if (entry.supervisor?.action !== "spoke") return false;
        this.said("supervisor", entry.content, index);
        this.spoke();
        return true;
      default:
        return false;
    }
  }

  private said(speaker: "caller" | "assistant" | "supervisor", text: string, index: number): void {
    const trimmed = text.length > LAST_SAID_MAX ? `…${text.slice(text.length - LAST_SAID_MAX + 1)}` : text;
    this.lastSaid = { speaker, text: trimmed };
    this.lastSaidIndex = index;
  }

  /** Somebody spoke: the silence rule counts from now (a timer raises it when nobody speaks again). */
  private spoke(): void {
    this.lastSpokeAt = this.now();
    if (this.silenceTimer) return;
    const check = () => {
      this.silenceTimer = null;
      if (this.ended) return;
      const left = this.lastSpokeAt + STUCK_SILENCE_MS - this.now();
      if (left > 0) {
        this.silenceTimer = setTimeout(check, left).unref();
        return;
      }
      this.summaryChanged();
    };
    this.silenceTimer = setTimeout(check, STUCK_SILENCE_MS).unref();
  }

  /** At most one summary per SUMMARY_INTERVAL_MS; the last change always goes out. */
  private summaryChanged(): void {
    if (!this.isLive || this.summaryTimer) return;
    const wait = this.lastSummaryAt + SUMMARY_INTERVAL_MS - this.now();
    if (wait <= 0) {
      this.flushSummary();
      return;
    }
    this.summaryTimer = setTimeout(() => {
      this.summaryTimer = null;
      this.flushSummary();
    }, wait).unref();
  }

  private flushSummary(): void {
    if (!this.isLive) return;
    this.lastSummaryAt = this.now();
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
    this.mixer?.heard(samples);
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
        ` (${spoke} time${spoke === 1 ? "" : "s"}); their words could not be transcribed. What the caller said meanwhile is in the conversation.` +
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

  /** The mixer runs only while someone listens or has taken over: a call nobody hears costs nothing extra. */
  private updateAudio(): void {
    const needed = this.takeOver !== null || [...this.watchers.values()].some((state) => state.listening);
    if (needed && !this.mixer && !this.ended) {
      this.mixer = new ListenMixer(this.facts.sampleRate);
      this.ticker = setInterval(() => this.tick(), MIX_FRAME_MS).unref();
    } else if (!needed && this.mixer) {
      this.mixer = null;
      if (this.ticker) clearInterval(this.ticker);
      this.ticker = null;
    }
  }

  private tick(): void {
    const frames = this.mixer?.idle();
    if (!frames?.length) return;
    const controller = this.takeOver?.watcher;
    for (const [watcher, state] of this.watchers) {
      if (!state.listening || watcher === controller) continue;
      for (const frame of frames) watcher.audio(frame);
    }
  }
}
