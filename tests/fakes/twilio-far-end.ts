/**
 * The far end of outbound calls: what Twilio does after `Calls.create` answered 201, played
 * against the app's public URLs (PUBLIC_URL = the app's own origin in tests) with callbacks
 * signed as Twilio signs them (HMAC-SHA1 over the URL and the sorted fields, the account's auth
 * token). Each call's outcome is scripted per number to call (default "answer"):
 *
 * | outcome     | what the app receives                                                                 |
 * |-------------|---------------------------------------------------------------------------------------|
 * | answer      | initiated, ringing, answered; the call's Url (POST), then a media stream (TwilioCaller) |
 * | machine     | as answer, then the AsyncAmdStatusCallback with AnsweredBy=machine_end_beep            |
 * | no-answer   | initiated, ringing, then the completed event with CallStatus=no-answer                  |
 * | busy        | initiated, ringing, then CallStatus=busy                                                |
 * | failed      | initiated, then CallStatus=failed                                                       |
 * | ring        | initiated, ringing, and rings until the app cancels it (Status=canceled or completed)   |
 *
 * Only the StatusCallbackEvent values asked for are sent, except `completed` (always, when there
 * is a StatusCallback). An answered call ends when the app's stream closes, when the test hangs
 * up (`hangUp`), or when the app updates the call (`Status=completed`, or TwiML such as
 * `<Say>…</Say><Hangup/>`, whose spoken text is kept in `said`). With AsyncAmd on, a person
 * answering yields AnsweredBy=human.
 */
import type { FakeCall, FakeTwilioRest } from "./twilio-rest.ts";
import { signTwilio, TwilioCaller } from "./twilio-caller.ts";

export type FarEndOutcome = "answer" | "machine" | "no-answer" | "busy" | "failed" | "ring";

export interface FarEndCallback {
  url: string;
  params: Record<string, string>;
  status: number;
}

export interface FarEndCall {
  sid: string;
  from: string;
  to: string;
  outcome: FarEndOutcome;
  /** Twilio's status of the call now. */
  status: string;
  /** The answered call's media stream (answer / machine), once opened. */
  caller: TwilioCaller | null;
  callbacks: FarEndCallback[];
  /** What `<Say>` in an update spoke (a voicemail message). */
  said: string[];
  /** Resolves once the final status callback was answered. */
  ended: Promise<void>;
}

export interface FarEnd {
  calls: Map<string, FarEndCall>;
  /** How the next calls to `to` go. */
  script(to: string, outcome: FarEndOutcome): void;
  /** The outcome of numbers without a script (default "answer"). */
  setDefault(outcome: FarEndOutcome): void;
  /** The call to `to` (the latest), once Twilio has been asked for it. */
  callTo(to: string, timeoutMs?: number): Promise<FarEndCall>;
  /** The answered call's stream, once open. */
  answered(sid: string, timeoutMs?: number): Promise<TwilioCaller>;
  /** The callee puts the phone down. */
  hangUp(sid: string): Promise<void>;
  /** Twilio ends the call with this final status now; resolves once the app answered its callback. */
  end(sid: string, status: string): Promise<void>;
  /** Calls between create and their end now, and the most there ever were at once. */
  readonly live: number;
  readonly peak: number;
  /** Starts counting `peak` again from the calls live now. */
  resetPeak(): void;
  /** Every call placed, in order. */
  readonly placed: { sid: string; to: string; at: number }[];
}

export interface FarEndOptions {
  /** Where the app listens (public URLs are sent here by path); read on each request, so a test may point it at a new app. */
  origin: string;
  /** The auth token callbacks are signed with. */
  authToken: string;
  /** ms between each progress step (default 10). */
  stepMs?: number;
  /** ms from the answer to the AMD verdict (default 30). */
  amdMs?: number;
  /** How long an answered call with nobody hanging up lasts before the callee leaves (default: until told). */
  talkMs?: number;
}

const SIP_CODES: Record<string, string> = { busy: "486", "no-answer": "487", failed: "404" };
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function attachFarEnd(rest: FakeTwilioRest, options: FarEndOptions): FarEnd {
  const stepMs = options.stepMs ?? 10;
  const amdMs = options.amdMs ?? 30;
  const scripts = new Map<string, FarEndOutcome>();
  let fallback: FarEndOutcome = "answer";
  const calls = new Map<string, FarEndCall>();
  const placed: { sid: string; to: string; at: number }[] = [];
  const waiters = new Set<() => void>();
  const finishers = new Map<string, (status: string) => Promise<void>>();
  let live = 0;
  let peak = 0;
  const notify = () => waiters.forEach((w) => w());
  const until = <T>(get: () => T | null | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const value = get();
        if (value === null || value === undefined) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`far end: timed out waiting for ${what}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });

  /** The app's answer status; 0 when it could not be reached (it may have closed at the end of a test). */
  async function post(url: string, params: Record<string, string>): Promise<number> {
    const target = new URL(url);
    const res = await fetch(`${options.origin}${target.pathname}${target.search}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signTwilio(options.authToken, url, params) },
      body: new URLSearchParams(params).toString(),
    }).catch(() => null);
    if (!res) return 0;
    await res.arrayBuffer();
    return res.status;
  }

  function play(fake: FakeCall): void {
    const form = fake.created ?? {};
    const outcome = scripts.get(fake.to) ?? fallback;
    let resolveEnded!: () => void;
    const call: FarEndCall = { sid: fake.sid, from: fake.from, to: fake.to, outcome, status: "queued", caller: null, callbacks: [], said: [], ended: new Promise((r) => (resolveEnded = r)) };
    calls.set(call.sid, call);
    placed.push({ sid: call.sid, to: call.to, at: Date.now() });
    live += 1;
    peak = Math.max(peak, live);
    const events = new Set((fake.events ?? []).map((e) => e.toLowerCase()));
    const amd = form.AsyncAmd === "true" && form.AsyncAmdStatusCallback;
    let answeredAt = 0;
    let sequence = 0;
    let over = false;
    const base = () => ({
      AccountSid: fake.accountSid,
      ApiVersion: "2010-04-01",
      CallSid: fake.sid,
      CallStatus: call.status,
      Called: fake.to,
      Caller: fake.from,
      Direction: "outbound-api",
      From: fake.from,
      To: fake.to,
    });
    const progress = async (event: string, status: string, extra: Record<string, string> = {}) => {
      call.status = status;
      fake.status = status;
      notify();
      if (!form.StatusCallback || (event !== "completed" && !events.has(event))) return;
      const params = { ...base(), CallbackSource: "call-progress-events", SequenceNumber: String(sequence++), Timestamp: new Date().toUTCString(), ...extra };
      call.callbacks.push({ url: form.StatusCallback, params, status: await post(form.StatusCallback, params) });
    };
    const finish = async (status: string) => {
      if (over) return;
      over = true;
      const seconds = answeredAt ? Math.max(1, Math.ceil((Date.now() - answeredAt) / 1000)) : 0;
      const sip = SIP_CODES[status];
      await call.caller?.stopStream().catch(() => undefined);
      // Over at Twilio before the app is told: a slot the app frees on hearing of it is free.
      live -= 1;
      await progress("completed", status, { CallDuration: String(seconds), Duration: String(Math.ceil(seconds / 60)), ...(sip ? { SipResponseCode: sip } : {}) });
      resolveEnded();
      notify();
    };
    finishers.set(call.sid, finish);

    void (async () => {
      await sleep(stepMs);
      if (over) return;
      await progress("initiated", "initiated");
      if (outcome === "failed") return finish("failed");
      await sleep(stepMs);
      if (over) return;
      await progress("ringing", "ringing");
      await sleep(stepMs);
      if (over) return;
      if (outcome === "busy" || outcome === "no-answer") return finish(outcome);
      // Nobody picks up: only the app's update (a cancel) ends it.
      if (outcome === "ring") return;
      answeredAt = Date.now();
      await progress("answered", "in-progress");
      if (!form.Url) return finish("completed");
      const caller = await TwilioCaller.dial({
        origin: options.origin,
        authToken: options.authToken,
        to: fake.to,
        from: fake.from,
        callSid: fake.sid,
        outbound: { url: form.Url, params: base() },
      });
      if (caller.webhookStatus !== 200 || !caller.stream()) return finish("completed");
      await caller.openStream();
      call.caller = caller;
      notify();
      void caller.until(() => caller.closed !== null, "stream closed", 24 * 3600_000).then(() => finish("completed"), () => undefined);
      if (options.talkMs !== undefined) setTimeout(() => void caller.hangUp().catch(() => undefined), options.talkMs);
      if (amd) {
        await sleep(amdMs);
        if (over) return;
        const params = { AccountSid: fake.accountSid, CallSid: fake.sid, AnsweredBy: outcome === "machine" ? "machine_end_beep" : "human", MachineDetectionDuration: String(amdMs) };
        call.callbacks.push({ url: form.AsyncAmdStatusCallback!, params, status: await post(form.AsyncAmdStatusCallback!, params) });
      }
    })().catch(() => finish("failed"));
  }

  rest.onCallCreated((fake) => play(fake));
  rest.onCallUpdate((fake, form) => {
    const call = calls.get(fake.sid);
    const finish = finishers.get(fake.sid);
    if (!call || !finish) return;
    if (form.Twiml !== undefined && !/<Dial/.test(form.Twiml)) {
      for (const m of form.Twiml.matchAll(/<Say[^>]*>([^<]*)<\/Say>/g)) call.said.push(m[1]!.replace(/&apos;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, "&"));
      void finish("completed");
    }
    if (form.Status === "completed" || form.Status === "canceled") void finish(call.status === "in-progress" ? "completed" : "canceled");
  });

  return {
    calls,
    script: (to, outcome) => void scripts.set(to, outcome),
    setDefault: (outcome) => void (fallback = outcome),
    callTo: (to, timeoutMs = 8000) => until(() => [...calls.values()].reverse().find((c) => c.to === to), `a call to ${to}`, timeoutMs),
    answered: (sid, timeoutMs = 8000) => until(() => calls.get(sid)?.caller, `the stream of ${sid}`, timeoutMs),
    async hangUp(sid) {
      await calls.get(sid)?.caller?.hangUp();
    },
    end: async (sid, status) => void (await finishers.get(sid)?.(status)),
    get live() {
      return live;
    },
    get peak() {
      return peak;
    },
    resetPeak: () => void (peak = live),
    placed,
  };
}
