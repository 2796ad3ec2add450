/** Tool calls during a call (spec §4 "Live conversation", §8 "Tool resolution"), over real sockets. */
import { describe, expect, it } from "vitest";
import type { FakeReply } from "../../../tests/fakes/fake-realtime.ts";
import type { TestBrowser } from "../../../tests/fakes/realtime-browser-client.ts";
import { useFakeCall } from "../../../tests/fakes/realtime-harness.ts";
import { RecordingToolRunner, type ToolHandler } from "../../../tests/fakes/realtime-tool-runner.ts";
import type { ToolDefinition } from "./tool-resolution.ts";

const weather: ToolDefinition = {
  id: "tool-weather",
  name: "Get Weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" }, unit: { type: "string" } }, required: ["city"] },
};
const order: ToolDefinition = {
  id: "tool-order",
  name: "Order Status Lookup",
  description: "Where an order is",
  parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
};

const voice = useFakeCall();


/** A connected call (no greeting) whose replies are `replies`, with the weather and order tools. */
async function toolCall(replies: FakeReply[], handler?: ToolHandler) {
  voice.fake.script = { replies };
  const runner = new RecordingToolRunner(handler);
  const harness = await voice.start({ assistant: { firstMessage: null, tools: [weather, order] }, toolRunner: runner });
  const { browser, session } = await harness.call();
  await browser.untilStatus("Connected to Ava");
  const conn = await voice.fake.connection();
  return { browser, session, conn, runner };
}

const finished = (b: TestBrowser, n: number) =>
  b.until(() => b.statuses().filter((s) => s === "Assistant finished responding").length >= n, `${n} responses`, 5000);
const outputs = (conn: Awaited<ReturnType<typeof toolCall>>["conn"]) =>
  conn.receivedOf("conversation.item.create").flatMap((e) => {
    const item = e["item"] as { type: string; call_id: string; output: string };
    return item.type === "function_call_output" ? [{ call_id: item.call_id, output: JSON.parse(item.output) as unknown }] : [];
  });

describe("tool calls", () => {
  it("declares the tools, assembles the streamed arguments, runs the tool once and answers after response.done", async () => {
    const { browser, session, conn, runner } = await toolCall([{ say: "Let me check.", toolCalls: [{ name: "Get_Weather", arguments: { city: "Paris" }, callId: "call_w1", pieces: 4 }] }]);
    const update = await conn.waitFor("session.update");
    expect((update["session"] as { tools: unknown }).tools).toEqual([
      { type: "function", name: "Get_Weather", description: "Current weather for a city", parameters: weather.parameters },
      { type: "function", name: "Order_Status_Lookup", description: "Where an order is", parameters: order.parameters },
    ]);

    browser.sendText("Weather in Paris?");
    await finished(browser, 2);
    expect(runner.runs).toEqual([{ tool: weather, args: { city: "Paris" } }]);
    expect(outputs(conn)).toEqual([{ call_id: "call_w1", output: { tool: "Get Weather", args: { city: "Paris" } } }]);

    // Output, then exactly one response.create — after the asking response was done.
    const flow = conn.timeline
      .filter((e) => ["response.create", "response.done", "conversation.item.create"].includes(e.type))
      .map((e) => `${e.dir} ${e.type}`);
    expect(flow).toEqual([
      "in conversation.item.create", // the typed text
      "in response.create",
      "out response.done", // the response with the function call
      "in conversation.item.create", // function_call_output
      "in response.create",
      "out response.done",
    ]);
    expect(conn.errorCodes()).toEqual([]);

    expect(browser.transcript().map((e) => [e.type, e.content])).toEqual([
      ["user", "Weather in Paris?"],
      ["assistant", "Let me check."],
      ["tool-request", "Calling tool Get Weather"],
      ["tool-response", "Tool Get Weather completed with status 200"],
      ["assistant", 'Here is what I found: {"tool":"Get Weather","args":{"city":"Paris"}}'],
    ]);
    expect(browser.transcript()[2]).toMatchObject({ parameters: { city: "Paris" }, toolData: { toolName: "Get Weather", toolId: "tool-weather", callId: "call_w1" } });
    expect(browser.transcript()[3]).toMatchObject({ result: { tool: "Get Weather", args: { city: "Paris" } } });

    const outcome = await session.close("User ended call");
    expect(outcome.logs.toolsUsed).toEqual([
      { name: "Get Weather", id: "tool-weather", parameters: { city: "Paris" }, result: { tool: "Get Weather", args: { city: "Paris" } }, timestamp: expect.any(String), callId: "call_w1" },
    ]);
  });

  it("does not run a repeat with the same tool and arguments: the cached result is reused and flagged", async () => {
    const { browser, conn, runner } = await toolCall([
      {
        toolCalls: [
          { name: "Get_Weather", arguments: { city: "Paris", unit: "C" }, callId: "call_a" },
          { name: "get_weather", arguments: '{"unit":"C","city":"Paris"}', callId: "call_b" },
        ],
      },
      "It is sunny.",
      { toolCalls: [{ name: "Get Weather", arguments: { city: "Paris", unit: "C" }, callId: "call_c" }] },
    ]);
    browser.sendText("Weather?");
    await finished(browser, 2);
    browser.sendText("And again?");
    await finished(browser, 4);
    expect(runner.runs).toHaveLength(1);
    expect(outputs(conn).map((o) => o.call_id)).toEqual(["call_a", "call_b", "call_c"]);
    const responses = browser.transcript().filter((e) => e.type === "tool-response");
    expect(responses.map((e) => e.content)).toEqual([
      "Tool Get Weather completed with status 200",
      "Tool Get Weather completed with status 200 (cached)",
      "Tool Get Weather completed with status 200 (cached)",
    ]);
    expect(responses[1]?.toolData?.cached).toBe(true);
    // Two calls in one response: two outputs, one response.create.
    expect(conn.receivedOf("response.create")).toHaveLength(4);
    expect(conn.errorCodes()).toEqual([]);
  });

  it("resolves names by every rule of spec §8", async () => {
    const calls = [
      { name: "tool-order", arguments: { order_id: "1" } }, // id
      { name: "Get Weather", arguments: { city: "A" } }, // exact name
      { name: "Order_Status_Lookup", arguments: { order_id: "2" } }, // the sanitised name we declared
      { name: "get_weather", arguments: { city: "B" } }, // underscores → capitalised words
      { name: "weather", arguments: { city: "C" } }, // partial
      { name: "lookup-order-status", arguments: { order_id: "3" } }, // containment
      { name: "item", arguments: { order_id: "4" } }, // inferred from the arguments
    ].map((c, i) => ({ ...c, callId: `call_${i}` }));
    const { browser, runner } = await toolCall([{ toolCalls: calls }]);
    browser.sendText("Go");
    await finished(browser, 2);
    expect(runner.runs.map((r) => [r.tool.id, r.args])).toEqual([
      ["tool-order", { order_id: "1" }],
      ["tool-weather", { city: "A" }],
      ["tool-order", { order_id: "2" }],
      ["tool-weather", { city: "B" }],
      ["tool-weather", { city: "C" }],
      ["tool-order", { order_id: "3" }],
      ["tool-order", { order_id: "4" }],
    ]);
  });

  it('uses the only tool when the model says "item" and the arguments say nothing', async () => {
    voice.fake.script = { replies: [{ toolCalls: [{ name: "item", arguments: {}, callId: "call_only" }] }] };
    const runner = new RecordingToolRunner();
    const harness = await voice.start({ assistant: { firstMessage: null, tools: [order] }, toolRunner: runner });
    const { browser } = await harness.call();
    await browser.untilStatus("Connected to Ava");
    browser.sendText("Go");
    await finished(browser, 2);
    expect(runner.runs.map((r) => r.tool.id)).toEqual(["tool-order"]);
  });

  it("answers an unknown tool with a system error and an error output", async () => {
    const { browser, conn, runner } = await toolCall([{ toolCalls: [{ name: "send_email", arguments: { to: "x" }, callId: "call_x" }] }]);
    browser.sendText("Email them");
    await finished(browser, 2);
    const error = 'Tool "send_email" not found. Available tools: Get Weather, Order Status Lookup';
    expect(runner.runs).toEqual([]);
    expect(browser.transcript()).toContainEqual(expect.objectContaining({ type: "system", content: error, isError: true }));
    expect(outputs(conn)).toEqual([{ call_id: "call_x", output: { error } }]);
    expect(conn.receivedOf("response.create")).toHaveLength(2);
  });

  it("sends tool failures back as an error field and flags the entry", async () => {
    const { browser, conn } = await toolCall(
      [{ toolCalls: [{ name: "Get_Weather", arguments: { city: "Oslo" }, callId: "call_f" }, { name: "Order_Status_Lookup", arguments: { order_id: "9" }, callId: "call_t" }] }],
      (tool) => {
        if (tool.id === "tool-order") throw new Error("connect ECONNREFUSED");
        return { success: false, status: 503, data: { message: "down" }, error: "Service Unavailable" };
      },
    );
    browser.sendText("Go");
    await finished(browser, 2);
    expect(outputs(conn)).toEqual([
      { call_id: "call_f", output: { error: "Service Unavailable", status: 503, data: { message: "down" } } },
      { call_id: "call_t", output: { error: "connect ECONNREFUSED", status: 0, data: null } },
    ]);
    const failures = browser.transcript().filter((e) => e.type === "tool-response");
    expect(failures.map((e) => [e.content, e.isError])).toEqual([
      ["Tool Get Weather failed: Service Unavailable", true],
      ["Tool Order Status Lookup failed: connect ECONNREFUSED", true],
    ]);
  });

  it("passes unparseable arguments on as raw", async () => {
    const { browser, runner } = await toolCall([{ toolCalls: [{ name: "Get_Weather", arguments: '{"city": Par', callId: "call_r" }] }]);
    browser.sendText("Go");
    await finished(browser, 2);
    expect(runner.runs.map((r) => r.args)).toEqual([{ raw: '{"city": Par' }]);
  });

  it("refuses a call id that does not start with call_, but answers the model with an error output so the conversation goes on", async () => {
    const { browser, conn, runner } = await toolCall([{ toolCalls: [{ name: "Get_Weather", arguments: { city: "Rome" }, callId: "fc_123" }] }, "Sorry, I could not check that."]);
    browser.sendText("Go");
    await finished(browser, 2);
    const refusal = 'Refused tool call "Get_Weather": invalid call id "fc_123"';
    expect(browser.transcript()).toContainEqual(expect.objectContaining({ type: "system", content: refusal, isError: true }));
    expect(runner.runs).toEqual([]);
    expect(outputs(conn)).toEqual([{ call_id: "fc_123", output: { error: refusal } }]);
    expect(conn.receivedOf("response.create")).toHaveLength(2);
    expect(browser.transcript().at(-1)).toMatchObject({ type: "assistant", content: "Sorry, I could not check that." });
  });

  it('runs the tool the model was given under a colliding name ("Get Weather" vs "Get_Weather")', async () => {
    const spaced: ToolDefinition = { id: "tool-spaced", name: "Get Weather", parameters: { type: "object", properties: {} } };
    const underscored: ToolDefinition = { id: "tool-underscored", name: "Get_Weather", parameters: { type: "object", properties: {} } };
    voice.fake.script = { replies: [{ toolCalls: [{ name: "Get_Weather", arguments: {}, callId: "call_1" }, { name: "Get_Weather_2", arguments: { x: 1 }, callId: "call_2" }] }] };
    const runner = new RecordingToolRunner();
    const harness = await voice.start({ assistant: { firstMessage: null, tools: [spaced, underscored] }, toolRunner: runner });
    const { browser } = await harness.call();
    await browser.untilStatus("Connected to Ava");
    const conn = await voice.fake.connection();
    const update = await conn.waitFor("session.update");
    expect((update["session"] as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(["Get_Weather", "Get_Weather_2"]);
    browser.sendText("Go");
    await finished(browser, 2);
    expect(runner.runs.map((r) => r.tool.id)).toEqual(["tool-spaced", "tool-underscored"]);
  });
});
