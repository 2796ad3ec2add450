/** The built-in functions end_call / transfer_call in a browser test call, over real sockets. */
import { describe, expect, it } from "vitest";
import type { FakeReply } from "../../../tests/fakes/fake-realtime.ts";
import { useFakeCall } from "../../../tests/fakes/realtime-harness.ts";
import { RecordingToolRunner } from "../../../tests/fakes/realtime-tool-runner.ts";
import type { HandoffSettings } from "./builtins.ts";
import type { ToolDefinition } from "./tool-resolution.ts";

const billing = { label: "Billing team", phone_number: "+442071234567", when_to_use: "When the caller disputes a charge" };
const userEndCall: ToolDefinition = { id: "tool-end", name: "end_call", description: "The user's own tool", parameters: { type: "object", properties: {} } };

const voice = useFakeCall();


async function connected(replies: FakeReply[], handoff: HandoffSettings, tools: ToolDefinition[] = []) {
  voice.fake.script = { replies };
  const runner = new RecordingToolRunner();
  const harness = await voice.start({ assistant: { firstMessage: null, tools, handoff }, toolRunner: runner });
  const { browser, session } = await harness.call();
  await browser.untilStatus("Connected to Ava");
  return { browser, session, runner, conn: await voice.fake.connection() };
}

const declared = (update: Record<string, unknown>) => ((update["session"] as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name);

describe("end_call", () => {
  it("is offered when allowed, waits until the goodbye was heard, then ends the call with 'Assistant ended call' and asks for no further response", async () => {
    const { browser, conn } = await connected(
      [{ say: "Goodbye, have a nice day!", audioMs: 600, toolCalls: [{ name: "end_call", arguments: { reason: "done" }, callId: "call_end1" }] }],
      { transferDestinations: [], allowEndCall: true, keypadInput: true },
    );
    expect(declared(await conn.waitFor("session.update"))).toEqual(["end_call"]);
    browser.sendText("That's all, thanks.");
    await browser.until(() => browser.transcript().some((e) => e.type === "tool-response" && e.toolData?.builtIn === true), "built-in result");
    const request = browser.transcript().find((e) => e.type === "tool-request")!;
    expect(request).toMatchObject({ content: "Calling built-in function end_call", parameters: { reason: "done" }, toolData: { toolName: "end_call", builtIn: true } });

    // Not heard yet: the call stays up.
    await new Promise((r) => setTimeout(r, 400));
    expect(browser.closed).toBeNull();
    const itemId = browser.of("audio_start")[0]!.itemId;
    browser.playback(itemId, 600);
    await browser.untilClosed();
    expect(browser.of("ended")[0]?.reason).toBe("Assistant ended call");
    // One response for the typed text; none after the function output.
    expect(conn.receivedOf("response.create")).toHaveLength(1);
    await voice.harness.sessions[0]!.closed;
    const record = voice.harness.store.only();
    expect(record.endedReason).toBe("Assistant ended call");
    expect(record.logs.toolsUsed).toMatchObject([{ name: "end_call", id: "builtin:end_call", builtIn: true }]);
  });

  it("is not offered when switched off, and a user's tool called end_call is declared under another name", async () => {
    const { conn } = await connected([], { transferDestinations: [billing], allowEndCall: false, keypadInput: true }, [userEndCall]);
    expect(declared(await conn.waitFor("session.update"))).toEqual(["transfer_call", "end_call_2"]);
  });
});

describe("transfer_call in a browser test call", () => {
  it("shows where the call would go and ends with that reason once the hand-off sentence was heard", async () => {
    const summary = "Caller disputes a charge on invoice 42.";
    const { browser, conn } = await connected(
      [{ say: "Let me put you through to billing.", audioMs: 400, toolCalls: [{ name: "transfer_call", arguments: { destination: "billing team", summary }, callId: "call_t1" }] }],
      { transferDestinations: [billing], allowEndCall: true, keypadInput: true },
    );
    const tools = (await conn.waitFor("session.update"))["session"] as { tools: Array<{ name: string; parameters: { properties: { destination: { enum: string[] } } } }> };
    expect(tools.tools.find((t) => t.name === "transfer_call")?.parameters.properties.destination.enum).toEqual(["Billing team"]);
    browser.sendText("I want to dispute a charge.");
    const line = `Would transfer to Billing team (+442071234567) with: ${summary}`;
    await browser.until(() => browser.transcript().some((e) => e.type === "system" && e.content === line), "would-transfer line");
    browser.playback(browser.of("audio_start")[0]!.itemId, 400);
    await browser.untilClosed();
    expect(browser.of("ended")[0]?.reason).toBe(line);
  });

  it("answers an unknown destination with an error and the call goes on", async () => {
    const { browser, conn } = await connected(
      [
        { say: "One moment.", audioMs: 200, toolCalls: [{ name: "transfer_call", arguments: { destination: "Sales", summary: "Wants a quote." }, callId: "call_t2" }] },
        "Sorry, I cannot transfer you there.",
      ],
      { transferDestinations: [billing], allowEndCall: true, keypadInput: true },
    );
    browser.sendText("Put me through to sales.");
    await browser.until(() => browser.transcript().some((e) => e.content === "Sorry, I cannot transfer you there."), "second answer");
    const response = browser.transcript().find((e) => e.type === "tool-response")!;
    expect(response.isError).toBe(true);
    expect(response.content).toContain('Unknown destination "Sales"');
    expect(conn.receivedOf("response.create")).toHaveLength(2);
    expect(browser.closed).toBeNull();
  });
});
