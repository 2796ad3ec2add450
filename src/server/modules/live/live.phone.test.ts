import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { FakeConnection, FakeScript } from "../../../../tests/fakes/fake-realtime.ts";
import { openBoard, openCall, speakAsSupervisor, takeOver, type CallClient } from "../../../../tests/fakes/live-supervisor.ts";
import { signUpCaller, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { silence, tone } from "../../../../tests/fakes/realtime-audio.ts";
import { setUpTwilioLine } from "../../../../tests/fakes/twilio-app.ts";
import type { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { LIVE_TEXTS } from "../../../shared/live.ts";
import { calls } from "../../db/schema.ts";
import { mulawToPcm16, pcm16ToBytes } from "../../voice/audio.ts";

/**
 * The live board over real sockets: a simulated Twilio caller on the real app, the call engine
 * on the fake OpenAI Realtime server, supervisors on WS /api/live/board and /api/live/calls/:id.
 */

const TO = "+15550111";
const FROM = "+15559877";
const SUPERVISOR = "Ada Lovelace";
const line = setUpTwilioLine({ apiKey: "sk-live-test", number: TO });
let other: Caller;
let base: string;

beforeAll(async () => {
  other = await signUpCaller(line.app.app, line.fake.apiKey);
  base = line.app.origin.replace("http", "ws");
});

/** A phone call in progress, its provider connection and its call id (as the board shows it). */
async function phoneCall(script: FakeScript = {}): Promise<{ call: TwilioCaller; conn: FakeConnection; callId: string }> {
  line.fake.script = script;
  const board = await openBoard(base, { cookie: line.owner.cookie });
  const index = line.fake.connections.length;
  const call = await line.dial(FROM);
  await call.openStream();
  const conn = await line.fake.connection(index);
  await board.until(() => board.of("call_updated").some((m) => m.call.callerNumber === FROM), "the call on the board");
  const callId = board.of("call_updated").find((m) => m.call.callerNumber === FROM)!.call.callId;
  board.close();
  return { call, conn, callId };
}

async function finishedRecord(callSid: string) {
  for (let i = 0; i < 250; i += 1) {
    const [row] = await line.app.db.select().from(calls).where(eq(calls.providerCallSid, callSid));
    if (row?.endTime && row.cost !== null) return { ...row, logs: callLogsSchema.parse(row.logs) };
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`call ${callSid} was not finalised`);
}

/** The transcript as a watcher shows it: `transcript` entries with their `transcript_delta`s applied. */
function shown(client: CallClient): string[] {
  const entries: string[] = [];
  for (const m of client.messages) {
    if (m.type === "watching") m.transcript.forEach((e, i) => (entries[i] = e?.content ?? ""));
    if (m.type === "transcript") entries[m.index] = m.entry.content;
    if (m.type === "transcript_delta") entries[m.index] = (entries[m.index] ?? "") + m.text;
  }
  return entries;
}

const texts = (entries: ReadonlyArray<{ content: string } | null>) => entries.flatMap((e) => (e ? [e.content] : []));

describe("live board authorisation", () => {
  it("refuses without a session (401), from another site (403), and answers 404 for another account's, a finished or an unknown call", async () => {
    const { call, callId } = await phoneCall();
    await expect(openBoard(base, {})).rejects.toThrow(/Unexpected server response: 401/);
    await expect(openCall(base, callId, {})).rejects.toThrow(/Unexpected server response: 401/);
    await expect(openBoard(base, { cookie: line.owner.cookie, origin: "https://evil.example" })).rejects.toThrow(/403/);
    await expect(openCall(base, callId, { cookie: line.owner.cookie, origin: "https://evil.example" })).rejects.toThrow(/403/);
    await expect(openCall(base, callId, { cookie: other.cookie })).rejects.toThrow(/Unexpected server response: 404/);
    await expect(openCall(base, "not-a-call", { cookie: line.owner.cookie })).rejects.toThrow(/404/);
    // The owner's own pages are fine.
    const watcher = await openCall(base, callId, { cookie: line.owner.cookie, origin: line.app.origin });
    await watcher.next("watching");
    await call.hangUp();
    await watcher.untilClosed();
    await expect(openCall(base, callId, { cookie: line.owner.cookie })).rejects.toThrow(/404/);
  });
});

describe("the board", () => {
  it("shows the account's calls only, pushes updates and watcher counts, and removes a call when it ends", async () => {
    const board = await openBoard(base, { cookie: line.owner.cookie });
    const stranger = await openBoard(base, { cookie: other.cookie });
    expect((await board.next("calls")).calls).toEqual([]);
    expect((await stranger.next("calls")).calls).toEqual([]);

    const { call, callId } = await phoneCall();
    await board.until(() => board.of("call_updated").some((m) => m.call.callId === callId), "call_updated");
    const first = board.of("call_updated").find((m) => m.call.callId === callId)!.call;
    expect(first).toMatchObject({ kind: "phone", callerNumber: FROM, calledNumber: TO, assistant: { name: "Ava" }, takenOverBy: null, watchers: 0 });
    // The greeting becomes "the last thing said".
    await board.until(() => board.of("call_updated").at(-1)?.call.lastSaid?.text === "Hello, this is Ava. How can I help?", "last said");
    expect(board.of("call_updated").at(-1)!.call.lastSaid?.speaker).toBe("assistant");

    // A board opened now gets the call in its snapshot.
    const late = await openBoard(base, { cookie: line.owner.cookie });
    expect((await late.next("calls")).calls.map((c) => c.callId)).toEqual([callId]);

    const one = await openCall(base, callId, { cookie: line.owner.cookie });
    const watching = await one.next("watching");
    expect(watching).toMatchObject({ sampleRate: 8000, control: { watchers: 1, listening: false, youHaveControl: false, takenOverBy: null } });
    expect(texts(watching.transcript)).toContain("Hello, this is Ava. How can I help?");
    const two = await openCall(base, callId, { cookie: line.owner.cookie });
    await one.until(() => one.of("control").at(-1)?.control.watchers === 2, "two watchers");
    await board.until(() => board.of("call_updated").at(-1)?.call.watchers === 2, "board counts two");
    two.close();
    await one.until(() => one.of("control").at(-1)?.control.watchers === 1, "back to one");
    await board.until(() => board.of("call_updated").at(-1)?.call.watchers === 1, "board counts one");

    await call.hangUp();
    await board.until(() => board.of("call_removed").some((m) => m.callId === callId), "call_removed");
    const ended = await one.next("ended");
    expect(ended).toMatchObject({ callId, reason: "Caller hung up" });
    await one.untilClosed();
    // The other account never heard of it.
    expect(stranger.messages.map((m) => m.type)).toEqual(["calls"]);
    for (const socket of [board, stranger, late]) socket.close();
  });
});

describe("supervising a call", () => {
  it("guide reaches the provider as a system item and the transcript (and the record) as 'Supervisor: …'; bad commands answer an error", async () => {
    const { call, conn, callId } = await phoneCall();
    const watcher = await openCall(base, callId, { cookie: line.owner.cookie });
    await watcher.next("watching");

    watcher.sendRaw("{not json");
    await watcher.next("error");
    watcher.send({ type: "guide", text: "   " });
    await watcher.next("error", 2);
    expect(watcher.of("error").map((m) => m.message)).toEqual([LIVE_TEXTS.invalidCommand, LIVE_TEXTS.invalidCommand]);

    watcher.send({ type: "guide", text: "Offer the caller a 10% discount." });
    await conn.until(() => conn.items.some((i) => i.role === "system" && i.text?.includes("A supervisor instructs you: Offer the caller a 10% discount.")), 5000, "system item");
    await watcher.until(() => watcher.of("transcript").some((m) => m.entry.content === "Supervisor: Offer the caller a 10% discount."), "guide line");
    expect(watcher.of("transcript").find((m) => m.entry.content.startsWith("Supervisor:"))!.entry).toMatchObject({ type: "system", supervisor: { name: SUPERVISOR, action: "guide" } });

    await call.hangUp();
    const record = await finishedRecord(call.callSid);
    expect(record.logs.transcript.find((e) => e.supervisor?.action === "guide")).toMatchObject({ content: "Supervisor: Offer the caller a 10% discount.", supervisor: { name: SUPERVISOR } });
  });

  it("take over silences the assistant at once and routes audio both ways; only one supervisor at a time; hand back restores answers", async () => {
    const { call, conn, callId } = await phoneCall({
      speechMs: 300,
      userSays: ["Tell me everything.", "I want a human."],
      replies: [{ say: "Here is a very long answer.", audioMs: 8000, chunkMs: 100 }, "Welcome back to the assistant."],
    });
    const boss = await openCall(base, callId, { cookie: line.owner.cookie });
    const peer = await openCall(base, callId, { cookie: line.owner.cookie });
    await boss.next("watching");
    await peer.next("watching");
    // The greeting, then the caller's question, then the long answer starts playing.
    await call.until(() => call.heardMs >= 300, "greeting");
    void call.speak(silence("audio/pcmu", 400));
    await call.until(() => call.receivedBytes >= (400 + 1000) * 8, "the long answer arriving", 8000);

    const afterClear = await takeOver(boss, call, "clear");
    await conn.waitFor("response.cancel");
    await conn.until(() => (conn.session["audio"] as { input: { turn_detection: { create_response: boolean } } }).input.turn_detection.create_response === false, 5000, "answers off");
    await peer.until(() => peer.of("control").at(-1)?.control.takenOverBy === SUPERVISOR, "peer sees the take-over");

    // Only one at a time; only the one in control hands back.
    peer.send({ type: "take_over" });
    peer.send({ type: "hand_back" });
    await peer.next("error", 2);
    expect(peer.of("error").map((m) => m.message)).toEqual([LIVE_TEXTS.alreadyTakenOver(SUPERVISOR), LIVE_TEXTS.notInControl]);

    // The supervisor's voice reaches the caller (µ-law), and nothing else does.
    const expected = speakAsSupervisor(boss);
    await call.until(() => afterClear.length >= 15, "supervisor media");
    expect(afterClear.every((audio) => audio.equals(expected))).toBe(true);
    await boss.until(() => boss.of("transcript").some((m) => m.entry.content === LIVE_TEXTS.supervisorSpoke), "supervisor spoke");

    // The caller's voice reaches the supervisor (caller only), and is still transcribed, unanswered.
    const responses = conn.sentOf("response.created").length;
    const callerAudio = tone("audio/pcmu", 400);
    await call.speak(callerAudio);
    const firstCallerFrame = pcm16ToBytes(mulawToPcm16(callerAudio.subarray(0, 160)));
    await boss.until(() => boss.frames.some((f) => f.data.equals(firstCallerFrame)), "caller audio at the supervisor");
    expect(boss.frames.every((f) => f.data.length === 320)).toBe(true);
    await boss.until(() => boss.of("transcript").some((m) => m.entry.type === "user" && m.entry.content === "I want a human."), "caller transcribed");
    expect(conn.sentOf("response.created").length).toBe(responses);
    expect(peer.frames).toEqual([]); // not listening: no audio

    // Hand back: answers on, the supervisor's part as context, and the assistant speaks again.
    boss.send({ type: "hand_back" });
    await conn.until(() => (conn.session["audio"] as { input: { turn_detection: { create_response: boolean } } }).input.turn_detection.create_response === true, 5000, "answers on");
    await conn.until(() => conn.items.some((i) => i.role === "system" && i.text?.includes("handed the call back to you")), 5000, "context item");
    await conn.until(() => conn.sentOf("response.created").length > responses, 5000, "a new response");
    await boss.until(() => shown(boss).includes("Welcome back to the assistant."), "assistant again");
    expect(boss.of("control").at(-1)!.control).toMatchObject({ takenOverBy: null, youHaveControl: false });

    await call.hangUp();
    const record = await finishedRecord(call.callSid);
    const actions = record.logs.transcript.flatMap((e) => (e.supervisor ? [e.supervisor.action] : []));
    expect(actions).toEqual(expect.arrayContaining(["take_over", "spoke", "hand_back"]));
    expect(actions.indexOf("take_over")).toBeLessThan(actions.indexOf("hand_back"));
    expect(record.recording).not.toBeNull();
  });

  it("listen sends the call mixed (caller and what the caller hears) as PCM16 8 kHz frames, and stops on request", async () => {
    const { call, callId } = await phoneCall({ speechMs: 300, userSays: ["Hello?"], replies: [{ say: "A short answer.", audioMs: 1500, chunkMs: 100 }] });
    const watcher = await openCall(base, callId, { cookie: line.owner.cookie });
    await watcher.next("watching");
    watcher.send({ type: "listen", on: true });
    await watcher.until(() => watcher.of("control").some((m) => m.control.listening), "listening");
    await watcher.until(() => watcher.of("transcript").some((m) => m.entry.content === LIVE_TEXTS.startedListening(SUPERVISOR)), "note");
    // The caller says something (silence as audio), the assistant answers with its tone.
    await call.speak(silence("audio/pcmu", 2000));
    const loud = (data: Buffer) => {
      const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.length));
      return samples.some((s) => Math.abs(s) > 4000);
    };
    await watcher.until(() => watcher.frames.some((f) => loud(f.data)), "the assistant in the mix");
    expect(watcher.frames.length).toBeGreaterThanOrEqual(50);
    expect(watcher.frames.every((f) => f.data.length === 320)).toBe(true);

    watcher.send({ type: "listen", on: false });
    await watcher.until(() => watcher.of("control").at(-1)?.control.listening === false, "stopped");
    await watcher.until(() => watcher.of("transcript").some((m) => m.entry.content === LIVE_TEXTS.stoppedListening(SUPERVISOR)), "note");
    await call.hangUp();
  });

  it("end call ends it with 'Ended by supervisor'; a controller who leaves hands the call back", async () => {
    const { call, conn, callId } = await phoneCall();
    const boss = await openCall(base, callId, { cookie: line.owner.cookie });
    await boss.next("watching");
    boss.send({ type: "take_over" });
    await conn.until(() => conn.receivedOf("session.update").length === 2, 5000, "answers off");
    boss.close();
    await conn.until(() => conn.receivedOf("session.update").length === 3, 5000, "answers on");
    expect(conn.receivedOf("session.update")[2]).toMatchObject({ session: { audio: { input: { turn_detection: { create_response: true } } } } });

    const ender = await openCall(base, callId, { cookie: line.owner.cookie });
    await ender.next("watching");
    ender.send({ type: "end_call" });
    expect(await ender.next("ended")).toMatchObject({ callId, reason: LIVE_TEXTS.endedBySupervisor });
    await ender.untilClosed();
    await call.until(() => call.closed !== null, "caller's stream closed");
    const record = await finishedRecord(call.callSid);
    expect(record.endedReason).toBe(LIVE_TEXTS.endedBySupervisor);
    expect(record.logs.transcript.filter((e) => e.supervisor).map((e) => e.content)).toEqual([
      LIVE_TEXTS.tookOver(SUPERVISOR),
      LIVE_TEXTS.handedBack(SUPERVISOR),
      LIVE_TEXTS.endedBy(SUPERVISOR),
    ]);
  });
});
