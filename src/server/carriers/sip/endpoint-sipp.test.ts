/**
 * The endpoint against SIPp, an independent SIP implementation, as the trunk: calls in (answered,
 * cancelled, challenged, put on hold, ended by either side) and out (answered, challenged,
 * refused). SIPp exits 0 only when every message it expected came as its scenario says.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runSipp, startSipp } from "../../../../tests/fakes/sipp.ts";
import { answerThenBye, authenticatedCall, cancelWhileRinging, challengeThenAnswer, holdByReinvite, refuseWith, waitForBye } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { SipCall } from "./call.ts";
import { SipEndpoint, type SipEndpointOptions } from "./endpoint.ts";
import type { SipEndReason } from "./end-reasons.ts";

let endpoint: SipEndpoint;

async function start(options: Partial<SipEndpointOptions> = {}) {
  endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 20000, max: 29999 } }, ...options });
  return endpoint;
}

const ended = (call: SipCall) =>
  new Promise<SipEndReason>((resolve) => (call.endReason ? resolve(call.endReason) : call.once("ended", (reason) => resolve(reason))));

/** Answers every call after ringing; resolves with the first call. */
function answerCalls(): Promise<SipCall> {
  return new Promise((resolve) =>
    endpoint.on("call", (call) => {
      call.ring();
      void call.answer();
      resolve(call);
    }),
  );
}

afterEach(async () => {
  await endpoint?.close();
});

describe("calls in", () => {
  beforeEach(async () => void (await start()));

  for (const transport of ["UDP", "TCP"] as const) {
    it(`answers SIPp's call over ${transport}, with audio agreed, and sees SIPp hang up`, async () => {
      const incoming = answerCalls();
      const sipp = runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: "uac", transport, args: ["-d", "200"] });
      const call = await incoming;
      expect(call.from).toContain("sipp");
      const run = await sipp;
      expect(run.code, run.log).toBe(0);
      expect(call.plan).toMatchObject({ codec: "PCMU", payloadType: 0, remoteAddress: "127.0.0.1", direction: "sendrecv" });
      expect(await ended(call)).toBe("remote-hangup");
    });
  }

  it("answers CANCEL with 200 and the INVITE with 487 when the caller gives up while it rings", async () => {
    const incoming = new Promise<SipCall>((resolve) => endpoint.on("call", (call) => (call.ring(), resolve(call))));
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: cancelWhileRinging });
    expect(run.code, run.log).toBe(0);
    expect(await ended(await incoming)).toBe("cancelled");
  });

  it("ends a call from our side with BYE, routed through the proxy that Record-Routed the call", async () => {
    endpoint.on("call", (call) => {
      call.ring();
      void call.answer().then(() => setTimeout(() => call.hangup(), 100));
    });
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: waitForBye });
    expect(run.code, run.log).toBe(0);
  });

  it("answers a re-INVITE that puts the call on hold with recvonly", async () => {
    const incoming = answerCalls();
    const sipp = runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: holdByReinvite });
    const call = await incoming;
    const held = new Promise((resolve) => call.on("media", (plan) => plan.direction === "recvonly" && resolve(plan)));
    const run = await sipp;
    expect(run.code, run.log).toBe(0);
    await held;
    expect(await ended(call)).toBe("remote-hangup");
  });

  it("refuses a call nobody takes with 480", async () => {
    // SIPp's built-in caller with no listener for calls: it expects a 200, so its call fails.
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: "uac", timeoutS: 3 });
    expect(run.log).toMatch(/480/);
  });
});

describe("calls in with digest authentication", () => {
  beforeEach(async () => void (await start({ auth: { realm: "switchboard.test", algorithms: ["MD5"], password: (u) => (u === "trunkuser" ? "s3cret" : undefined) } })));

  it("challenges the INVITE with 401 and takes the call SIPp sends again with its credentials", async () => {
    const incoming = answerCalls();
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: authenticatedCall });
    expect(run.code, run.log).toBe(0);
    expect(await ended(await incoming)).toBe("remote-hangup");
  });

  it("never rings for an INVITE without credentials", async () => {
    let rang = false;
    endpoint.on("call", () => void (rang = true));
    const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: "uac", timeoutS: 3 });
    expect(run.log).toMatch(/401/);
    expect(rang).toBe(false);
  });
});

describe("calls out", () => {
  beforeEach(async () => void (await start()));

  it("places a call SIPp answers, has its audio agreed, and hangs it up with BYE", async () => {
    const sipp = await startSipp({ target: "", scenario: answerThenBye });
    const call = await endpoint.call({ uri: `sip:+15557654321@127.0.0.1:${sipp.port}` });
    await new Promise<void>((resolve) => call.once("answered", resolve));
    expect(call.plan?.codec).toBe("PCMU");
    call.hangup();
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    expect(call.endReason).toBe("local-hangup");
  });

  it("answers the trunk's 401 with digest credentials", async () => {
    const sipp = await startSipp({ target: "", scenario: challengeThenAnswer });
    const call = await endpoint.call({ uri: `sip:+15557654321@127.0.0.1:${sipp.port}`, credentials: { username: "trunkuser", password: "s3cret" } });
    await new Promise<void>((resolve, reject) => (call.once("answered", resolve), call.once("ended", (r, s) => reject(new Error(`${r} ${s}`)))));
    call.hangup();
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
  });

  for (const [status, reason] of [
    ["486 Busy Here", "busy"],
    ["480 Temporarily Unavailable", "no-answer"],
    ["603 Decline", "rejected"],
    ["404 Not Found", "unreachable"],
  ] as const) {
    it(`ends with "${reason}" when the trunk answers ${status}`, async () => {
      const sipp = await startSipp({ target: "", scenario: refuseWith(status) });
      const call = await endpoint.call({ uri: `sip:+15557654321@127.0.0.1:${sipp.port}` });
      expect(await ended(call)).toBe(reason);
      const run = await sipp.done;
      expect(run.code, run.log).toBe(0);
    });
  }
});
