/**
 * Session timers (RFC 4028) against SIPp as the caller: asked to refresh (refresher=uas), we send
 * UPDATEs (or re-INVITEs to a caller that does not take UPDATE) every half interval; when the
 * caller says it refreshes and never does, we end the call with BYE before the interval runs out;
 * an interval below our Min-SE gets 422 with it. And SIPp as a trunk that makes us the refresher
 * of a call we place.
 */
import { afterEach, expect, it } from "vitest";
import { runSipp, startSipp } from "../../../../tests/fakes/sipp.ts";
import { neverRefreshed, refreshedByUs, tooBrief, trunkWantsRefreshes } from "../../../../tests/fakes/sipp-session-timer.ts";
import type { SipCall } from "./call.ts";
import { SipEndpoint } from "./endpoint.ts";
import type { SipEndReason } from "./end-reasons.ts";

let endpoint: SipEndpoint;
afterEach(async () => {
  await endpoint?.close();
});

/** Our endpoint, taking session timers from `minSE` seconds, answering every call; resolves with the first. */
async function answering(minSE: number): Promise<{ call: Promise<SipCall> }> {
  endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 34000, max: 34999 } }, minSessionExpires: minSE });
  const call = new Promise<SipCall>((resolve) =>
    endpoint.on("call", (call) => {
      call.ring();
      void call.answer();
      resolve(call);
    }),
  );
  return { call };
}

const ended = (call: SipCall) => new Promise<SipEndReason>((resolve) => (call.endReason ? resolve(call.endReason) : call.once("ended", (reason) => resolve(reason))));

it("refreshes the session with UPDATE every half interval when the caller leaves it to us", async () => {
  const incoming = await answering(2);
  const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: refreshedByUs(2, 2), timeoutS: 10 });
  expect(run.code, run.log).toBe(0);
  expect(await ended(await incoming.call)).toBe("remote-hangup");
});

it("refreshes by re-INVITE, ACKed, when the caller does not take UPDATE", async () => {
  const incoming = await answering(2);
  const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: refreshedByUs(2, 2, "INVITE"), timeoutS: 10 });
  expect(run.code, run.log).toBe(0);
  expect(await ended(await incoming.call)).toBe("remote-hangup");
});

it("ends the call with BYE when the caller, the refresher, never refreshes", async () => {
  const incoming = await answering(2);
  const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: neverRefreshed(3), timeoutS: 10 });
  expect(run.code, run.log).toBe(0);
  expect(await ended(await incoming.call)).toBe("timeout");
});

it("refuses too brief an interval with 422 and the least it takes", async () => {
  await answering(90);
  const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: tooBrief(30, 90) });
  expect(run.code, run.log).toBe(0);
});

it("on a call we place, offers session timers and refreshes when the trunk's 200 makes us the refresher", async () => {
  await answering(90);
  const sipp = await startSipp({ target: "", scenario: trunkWantsRefreshes });
  const call = await endpoint.call({ uri: `sip:+15557654321@127.0.0.1:${sipp.port}` });
  await new Promise<void>((resolve) => call.once("answered", resolve));
  // Past the first refresh (at 1 s), before the second.
  await new Promise((r) => setTimeout(r, 1500));
  call.hangup();
  const run = await sipp.done;
  expect(run.code, run.log).toBe(0);
});
