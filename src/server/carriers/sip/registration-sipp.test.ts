/**
 * Our REGISTER client against SIPp as the registrar: the headers RFC 3261 §10.2 asks for, the
 * digest answers (MD5 checked by SIPp, SHA-256 by the test from SIPp's trace), refreshes within
 * the granted interval on one Call-ID with a CSeq one higher each time, a retry after the
 * registrar was down, and the binding removed with Expires: 0.
 */
import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { registrar, registrarDownThenUp, registrarWantsLonger, sha256Registrar } from "../../../../tests/fakes/sipp-registrar.ts";
import { SipEndpoint } from "./endpoint.ts";
import type { Registration, RegistrationFailure } from "./registration.ts";

let endpoint: SipEndpoint;

afterEach(async () => {
  await endpoint?.close();
});

const start = async () => (endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 30000, max: 30999 } } }));

/** The REGISTERs SIPp received, from its message trace, with the headers the test reads. */
function registersIn(trace: string) {
  return trace
    .split(/-{20,}.*\n/)
    .filter((block) => /^(?:UDP|TCP) message received/m.test(block) && /^REGISTER /m.test(block))
    .map((block) => {
      const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "mi").exec(block)?.[1]?.trim();
      return { callId: header("Call-ID"), cseq: header("CSeq"), expires: header("Expires"), authorization: header("Authorization"), uri: /^REGISTER (\S+)/m.exec(block)![1]! };
    });
}

const registered = (r: Registration) => new Promise<number>((resolve) => r.once("registered", resolve));

describe("REGISTER to SIPp as the registrar", () => {
  it("registers with the trunk's AOR and our Contact, answers each 401, refreshes at half the granted time on one Call-ID, and un-registers", async () => {
    await start();
    const sipp = await startSipp({ target: "", scenario: registrar({ aor: "sip:trunkuser@127.0.0.1", expires: 3600, refreshes: 2 }), traceMessages: true, timeoutS: 15 });
    const registration = endpoint.register({ registrar: `sip:someone@127.0.0.1:${sipp.port}`, username: "trunkuser", password: "s3cret", expires: 3600, transport: "UDP" });
    const grants: number[] = [];
    registration.on("registered", (s) => grants.push(s));
    const failures: RegistrationFailure[] = [];
    registration.on("failed", (f) => failures.push(f));
    registration.start();
    // The first binding and two refreshes (the registrar grants 2 s each time).
    while (grants.length < 3) await registered(registration);
    expect(await registration.stop()).toBe(true);
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    expect(failures).toEqual([]);
    expect(grants).toEqual([2, 2, 2]);

    const sent = registersIn(run.messages);
    expect(sent).toHaveLength(8);
    expect(new Set(sent.map((r) => r.callId)).size).toBe(1);
    expect(sent.map((r) => r.cseq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${n} REGISTER`));
    // The Request-URI is the registrar's domain, never a user (§10.2).
    expect(new Set(sent.map((r) => r.uri))).toEqual(new Set([`sip:127.0.0.1:${sipp.port}`]));
    // Every other one answers the challenge; the last two remove the binding.
    expect(sent.map((r) => !!r.authorization)).toEqual([false, true, false, true, false, true, false, true]);
    expect(sent.map((r) => r.expires)).toEqual(["3600", "3600", "3600", "3600", "3600", "3600", "0", "0"]);
    expect(sent[1]!.authorization).toMatch(/^Digest username="trunkuser", realm="registrar.test", .*algorithm=MD5.*qop=auth/);
  });

  it("answers a SHA-256 challenge (RFC 8760) with the right digest", async () => {
    await start();
    const sipp = await startSipp({ target: "", scenario: sha256Registrar, traceMessages: true });
    const registration = endpoint.register({ registrar: `sip:127.0.0.1:${sipp.port}`, username: "trunkuser", password: "s3cret", expires: 600, transport: "UDP" });
    registration.start();
    expect(await registered(registration)).toBe(3600);
    registration.halt();
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    const auth = registersIn(run.messages)[1]!.authorization!;
    const field = (name: string) => new RegExp(`${name}="?([^",]+)"?`).exec(auth)![1]!;
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const ha1 = sha("trunkuser:registrar.test:s3cret");
    const ha2 = sha(`REGISTER:${field("uri")}`);
    expect(field("uri")).toBe(`sip:127.0.0.1:${sipp.port}`);
    expect(field("response")).toBe(sha(`${ha1}:${field("nonce")}:${field("nc")}:${field("cnonce")}:auth:${ha2}`));
  });

  it("tries again after the registrar refused (503), then registers", async () => {
    await start();
    const sipp = await startSipp({ target: "", scenario: registrarDownThenUp, timeoutS: 10 });
    const registration = endpoint.register({ registrar: `sip:127.0.0.1:${sipp.port}`, username: "trunkuser", password: "s3cret", expires: 600, transport: "UDP", retry: { firstMs: 300, maxMs: 1000 } });
    const failed = new Promise<RegistrationFailure>((resolve) => registration.once("failed", resolve));
    registration.start();
    expect(await failed).toEqual({ kind: "refused", status: 503, reason: "Service Unavailable" });
    expect(await registered(registration)).toBe(3600);
    expect(await registration.stop()).toBe(true);
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
  });

  it("asks again for the interval a 423 names (Min-Expires)", async () => {
    await start();
    const sipp = await startSipp({ target: "", scenario: registrarWantsLonger });
    const registration = endpoint.register({ registrar: `sip:127.0.0.1:${sipp.port}`, username: "trunkuser", password: "s3cret", expires: 600, transport: "UDP" });
    registration.start();
    expect(await registered(registration)).toBe(900);
    expect(await registration.stop()).toBe(true);
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
  });
});
