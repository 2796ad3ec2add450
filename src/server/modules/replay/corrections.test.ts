import { describe, expect, it } from "vitest";
import { openCall } from "../../../../tests/fakes/live-supervisor.ts";
import { openLiveSocket, sessionIdFor, setUpLiveOwner } from "../../../../tests/fakes/realtime-app.ts";
import { as } from "../../../../tests/harness.ts";
import { insertOrphanedCall } from "../../../../tests/orphaned-call.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { LIVE_TEXTS } from "../../../shared/live.ts";
import { SUGGESTION_TEXTS } from "../../../shared/replay.ts";
import type { Scenario } from "../../../shared/scenarios.ts";
import { suggestionsOf } from "./corrections.ts";

/**
 * Supervisor corrections become suggested tests: a real browser test call over its socket, a
 * supervisor on the live board guiding it, the call's end, the job on the durable queue, and the
 * suggestion the assistant's Tests list, accepted through the scenarios API.
 */

const file = setUpLiveOwner("sk-corrections", {}, { JOB_POLL_INTERVAL_MS: "500", INSTANCE_LEASE_MS: "1500" });

const scenarios = async (): Promise<Scenario[]> => {
  const res = await as(file.live.app, file.owner).get(`/api/assistants/${file.assistantId}/scenarios`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
};

/** A test call in which the caller says `says`; `during` runs once the assistant has answered; resolves with the call's id once it has ended. */
async function call(says: string, during?: (callId: string) => Promise<void>): Promise<string> {
  file.fake.script = { userSays: [says] };
  const browser = await openLiveSocket(file.live, file.owner, await sessionIdFor(file.live.app, file.owner, file.assistantId));
  await browser.until(() => browser.of("started").length > 0, "call record");
  const callId = browser.of("started")[0]!.callId;
  await browser.until(() => browser.statuses().includes("Assistant finished responding"), "greeting");
  browser.speak(400);
  await browser.until(() => browser.transcript().some((e) => e.type === "user"), "caller turn");
  await browser.until(() => browser.statuses().filter((s) => s === "Assistant finished responding").length >= 2, "reply");
  await during?.(callId);
  browser.end();
  await browser.untilClosed();
  return callId;
}

describe("a supervisor's guidance on the live board", () => {
  it("becomes a suggested test of the assistant when the call ends, which can be accepted", async () => {
    const unsupervised = await call("Just checking my balance");
    const guided = await call("I want to cancel my order", async (callId) => {
      const boss = await openCall(file.live.wsOrigin, callId, { cookie: file.owner.cookie });
      await boss.next("watching");
      boss.send({ type: "guide", text: "Offer a 10% discount before cancelling" });
      await boss.until(() => boss.of("transcript").some((m) => m.entry.supervisor?.action === "guide"), "guidance in the transcript");
    });

    await expect.poll(async () => (await scenarios()).filter((s) => s.source_call_id === guided), { timeout: 15_000, interval: 200 }).toHaveLength(1);
    const [suggestion] = (await scenarios()).filter((s) => s.source_call_id === guided);
    expect(suggestion).toMatchObject({
      source: "suggested",
      status: "suggested",
      name: "Guidance: Offer a 10% discount before cancelling",
      caller_turns: ["I want to cancel my order"],
      max_turns: 1,
    });
    expect(suggestion!.rubric).toBe(SUGGESTION_TEXTS.guideRubric("Ada Lovelace", "Offer a 10% discount before cancelling"));
    // A call nobody corrected suggests nothing.
    expect((await scenarios()).filter((s) => s.source_call_id === unsupervised)).toEqual([]);

    const accepted = await as(file.live.app, file.owner).patch(`/api/assistants/${file.assistantId}/scenarios/${suggestion!.id}`, { status: "accepted" });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect((await scenarios()).find((s) => s.id === suggestion!.id)?.status).toBe("accepted");
  });
});

describe("a corrected call whose instance died", () => {
  it("is suggested from once the sweep has closed it", async () => {
    const at = new Date().toISOString();
    const orphan = await insertOrphanedCall(file.live.db, { organizationId: file.owner.organizationId, assistantId: file.assistantId, instanceId: "died-1" }, [
      { type: "user", content: "I was charged twice", timestamp: at },
      { type: "system", content: LIVE_TEXTS.guide("Apologise and open a refund"), timestamp: at, supervisor: { name: "Ann", action: "guide" } },
    ]);
    await expect.poll(async () => (await scenarios()).filter((s) => s.source_call_id === orphan).map((s) => [s.name, s.caller_turns]), { timeout: 15_000, interval: 200 }).toEqual([
      ["Guidance: Apologise and open a refund", ["I was charged twice"]],
    ]);
  });
});

describe("suggestionsOf", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 10, 26, 9, 0, s)).toISOString();
  const ann = (action: "take_over" | "hand_back" | "spoke" | "guide", content: string, s: number): TranscriptEntry => ({ type: "system", content, timestamp: at(s), supervisor: { name: "Ann", action } });

  it("makes a take-over a suggestion with the caller's turns before it, and what the caller said until the hand-back", () => {
    const transcript: TranscriptEntry[] = [
      { type: "assistant", content: "Hello!", timestamp: at(0) },
      { type: "user", content: "My card was charged twice.", timestamp: at(1) },
      { type: "assistant", content: "Let me repeat that.", timestamp: at(2) },
      ann("take_over", LIVE_TEXTS.tookOver("Ann"), 3),
      ann("spoke", LIVE_TEXTS.supervisorSpoke, 4),
      { type: "user", content: "Yes, 40 dollars twice.", timestamp: at(5) },
      ann("hand_back", LIVE_TEXTS.handedBack("Ann"), 6),
      { type: "user", content: "Thanks, bye.", timestamp: at(7) },
    ];
    expect(suggestionsOf(transcript)).toEqual([
      expect.objectContaining({
        name: "Take-over by Ann",
        caller_turns: ["My card was charged twice."],
        rubric: SUGGESTION_TEXTS.takeOverRubric("Ann", ["Yes, 40 dollars twice."]),
        max_turns: 1,
      }),
    ]);
  });

  it("skips a correction made before the caller said anything", () => {
    expect(suggestionsOf([ann("guide", LIVE_TEXTS.guide("Be brief"), 0), { type: "user", content: "Hi", timestamp: at(1) }])).toEqual([]);
  });
});
