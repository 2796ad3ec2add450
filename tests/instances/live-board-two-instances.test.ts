import { beforeAll, describe, expect, it } from "vitest";
import { openBoard, openCall } from "../fakes/live-supervisor.ts";
import { createAssistant, openLiveSocket, sessionIdFor, signUpCaller, setUpTwoInstances } from "../fakes/realtime-app.ts";
import { tone } from "../fakes/realtime-audio.ts";
import { as, signUpAndLogIn } from "../harness.ts";
import type { SignedUp } from "../sign-up.ts";
import { joinAs } from "../team.ts";
import { SESSION_ENDED_CLOSE } from "../../src/shared/auth.ts";
import { LIVE_TEXTS } from "../../src/shared/live.ts";

/**
 * The live board across instances (two apps on one database, as two workers or two machines):
 * a call carried by A is on a board connected to B, and a supervisor connected to B listens,
 * guides, takes over and ends it; another account's supervisor gets 404 on B.
 */
const file = setUpTwoInstances("sk-live-two");
let owner: SignedUp;
let assistantId: string;

beforeAll(async () => {
  owner = await signUpAndLogIn(file.a.app);
  expect((await as(file.a.app, owner).put("/api/credentials/openai_api_key", { value: file.fake.apiKey })).statusCode).toBe(200);
  assistantId = (await createAssistant(file.a.app, owner)).id;
});

describe("the live board across instances", () => {
  it("a call carried by A is supervised from B: board, listen, guide, take over, end; another account gets 404", { timeout: 60_000 }, async () => {
    file.fake.script = {};
    const board = await openBoard(file.b.wsOrigin, { cookie: owner.cookie });
    await board.next("calls");
    const index = file.fake.connections.length;
    const browser = await openLiveSocket(file.a, owner, await sessionIdFor(file.a.app, owner, assistantId));
    await browser.until(() => browser.of("started").length > 0, "started");
    const callId = browser.of("started")[0]!.callId!;
    const conn = await file.fake.connection(index);
    await board.until(() => board.of("call_updated").some((m) => m.call.callId === callId), "the call on B's board");
    const late = await openBoard(file.b.wsOrigin, { cookie: owner.cookie });
    expect((await late.next("calls")).calls.map((c) => c.callId)).toEqual([callId]);

    const stranger = await signUpCaller(file.b.app);
    await expect(openCall(file.b.wsOrigin, callId, { cookie: stranger.cookie })).rejects.toThrow("404");
    await expect(openCall(file.b.wsOrigin, "00000000-0000-4000-8000-000000000000", { cookie: owner.cookie })).rejects.toThrow("404");

    const boss = await openCall(file.b.wsOrigin, callId, { cookie: owner.cookie });
    expect(await boss.next("watching")).toMatchObject({ call: { callId }, sampleRate: 24_000 });
    await board.until(() => board.of("call_updated").at(-1)?.call.watchers === 1, "B's board counts the watcher");

    boss.send({ type: "listen", on: true });
    await boss.until(() => boss.of("control").some((m) => m.control.listening), "listening");
    browser.speak(200);
    await boss.until(() => boss.bytesReceived > 0, "the call's audio on B");

    boss.send({ type: "guide", text: "Offer the caller a 10% discount." });
    await conn.until(() => conn.items.some((i) => i.role === "system" && i.text?.includes("A supervisor instructs you: Offer the caller a 10% discount.")), 5000, "system item");
    await boss.until(() => boss.of("transcript").some((m) => m.entry.content === "Supervisor: Offer the caller a 10% discount."), "guide line");

    // B (the serving instance) re-checks the membership: a supervisor removed (on A) loses the relayed socket, and leaves the call.
    const removed = await joinAs(file.a.app, owner, "supervisor", "Rae Removed");
    const watcher = await openCall(file.b.wsOrigin, callId, { cookie: removed.cookie });
    await watcher.next("watching");
    await board.until(() => board.of("call_updated").at(-1)?.call.watchers === 2, "two watchers");
    expect((await as(file.a.app, owner).delete(`/api/team/members/${removed.userId}`)).statusCode).toBe(204);
    await watcher.untilClosed(6000);
    expect(watcher.closed).toEqual(SESSION_ENDED_CLOSE);
    await board.until(() => board.of("call_updated").at(-1)?.call.watchers === 1, "the removed supervisor left the call");

    boss.send({ type: "take_over" });
    await boss.until(() => boss.of("control").some((m) => m.control.youHaveControl), "control");
    await board.until(() => board.of("call_updated").at(-1)?.call.takenOverBy === "Ada Lovelace", "B's board shows the take-over");
    const voice = tone("audio/pcm", 100);
    boss.sendRaw(voice);
    await browser.until(() => [...browser.audio.keys()].some((item) => item.startsWith("supervisor_") && browser.audio.get(item) === voice.length), "supervisor audio");

    boss.send({ type: "end_call" });
    await browser.until(() => browser.of("ended").length > 0, "ended");
    expect(browser.of("ended")[0]!.reason).toBe(LIVE_TEXTS.endedBySupervisor);
    await boss.until(() => boss.of("ended").length > 0 && boss.closed !== null, "B's watcher told and closed");
    await board.until(() => board.of("call_removed").some((m) => m.callId === callId), "removed from B's board");
    board.close();
    late.close();
  });
});
