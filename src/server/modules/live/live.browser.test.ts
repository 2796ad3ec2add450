import { describe, expect, it } from "vitest";
import { openBoard, openCall } from "../../../../tests/fakes/live-supervisor.ts";
import { openLiveSocket, sessionIdFor, setUpLiveOwner } from "../../../../tests/fakes/realtime-app.ts";
import { tone } from "../../../../tests/fakes/realtime-audio.ts";
import { LIVE_TEXTS } from "../../../shared/live.ts";

/** The live board on a browser test call (BrowserTransport, PCM16 24 kHz): the same controls as for a phone call. */

const file = setUpLiveOwner("sk-live-browser");

describe("a browser test call on the live board", () => {
  it("is listed as a test call at 24 kHz; take over sends the supervisor's voice to the browser and the browser's to the supervisor; listeners hear the mix", async () => {
    file.fake.script = {};
    const board = await openBoard(file.live.wsOrigin, { cookie: file.owner.cookie });
    await board.next("calls");
    const browser = await openLiveSocket(file.live, file.owner, await sessionIdFor(file.live.app, file.owner, file.assistantId));
    await browser.until(() => browser.of("started").length > 0, "started");
    const callId = browser.of("started")[0]!.callId!;
    const listed = await board.next("call_updated");
    expect(listed.call).toMatchObject({ callId, kind: "test", callerNumber: null, calledNumber: null });

    const boss = await openCall(file.live.wsOrigin, callId, { cookie: file.owner.cookie });
    const ear = await openCall(file.live.wsOrigin, callId, { cookie: file.owner.cookie });
    expect((await boss.next("watching")).sampleRate).toBe(24_000);
    await ear.next("watching");
    ear.send({ type: "listen", on: true });
    await ear.until(() => ear.of("control").some((m) => m.control.listening), "listening");

    boss.send({ type: "take_over" });
    await boss.until(() => boss.of("control").some((m) => m.control.youHaveControl), "control");
    await board.until(() => board.of("call_updated").at(-1)?.call.takenOverBy === "Ada Lovelace", "board shows the take-over");

    // The supervisor's PCM16 reaches the browser untouched, announced as its own item.
    const voice = tone("audio/pcm", 100);
    boss.sendRaw(voice);
    await browser.until(() => [...browser.audio.keys()].some((item) => item.startsWith("supervisor_") && browser.audio.get(item) === voice.length), "supervisor audio");

    // The browser's microphone reaches the supervisor (caller only) and the listener (mixed).
    browser.speak(200);
    await boss.until(() => boss.bytesReceived >= tone("audio/pcm", 200).length, "caller audio at the supervisor");
    expect(Buffer.concat(boss.frames.map((f) => f.data)).subarray(0, 9600).equals(tone("audio/pcm", 200).subarray(0, 9600))).toBe(true);
    await ear.until(() => ear.bytesReceived > 0, "mixed audio at the listener");

    boss.send({ type: "end_call" });
    await browser.until(() => browser.of("ended").length > 0, "ended");
    expect(browser.of("ended")[0]!.reason).toBe(LIVE_TEXTS.endedBySupervisor);
    await board.until(() => board.of("call_removed").some((m) => m.callId === callId), "removed");
    board.close();
  });
});
