import { describe, expect, it } from "vitest";
import type { ResponseOptions } from "./providers/realtime-protocol.ts";
import { ResponseQueue } from "./response-queue.ts";

describe("ResponseQueue", () => {
  function queue(open = true) {
    const sent: Array<ResponseOptions | undefined> = [];
    return { sent, q: new ResponseQueue((o) => (open ? (sent.push(o), true) : false)) };
  }

  it("sends at once when idle and coalesces requests made while a response is active", () => {
    const { sent, q } = queue();
    q.request();
    q.request({ instructions: "a" });
    q.request({ instructions: "b" });
    expect(sent).toEqual([undefined]);
    q.done();
    expect(sent).toEqual([undefined, { instructions: "b" }]);
    expect(q.isActive).toBe(true);
    q.done();
    expect(sent).toHaveLength(2);
    expect(q.isActive).toBe(false);
  });

  it("counts a server-started (VAD) response as active", () => {
    const { sent, q } = queue();
    q.created();
    q.request();
    expect(sent).toEqual([]);
    q.done();
    expect(sent).toEqual([undefined]);
  });

  it("retries a request refused as racing an active response, with its options", () => {
    const { sent, q } = queue();
    q.request({ instructions: "greet" });
    q.created(); // the server's own response won the race
    q.refusedAsActive();
    q.done();
    expect(sent).toEqual([{ instructions: "greet" }, { instructions: "greet" }]);
  });

  it("stays idle when nothing could be sent", () => {
    const { q } = queue(false);
    q.request();
    expect(q.isActive).toBe(false);
  });

  it("frees the slot when our request is refused for another reason, and sends what was queued meanwhile", () => {
    const { sent, q } = queue();
    q.request({ instructions: "a" });
    q.request({ instructions: "b" }); // typed text while "a" is believed active
    q.refused();
    expect(sent).toEqual([{ instructions: "a" }, { instructions: "b" }]);
    q.created();
    q.done();
    expect(q.isActive).toBe(false);
  });

  it("keeps a server-started response active when a refusal is not about our request", () => {
    const { q } = queue();
    q.created();
    q.refused();
    expect(q.isActive).toBe(true);
  });
});
