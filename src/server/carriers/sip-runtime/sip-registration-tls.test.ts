/**
 * Trunks that register over TLS: a trunk whose transport is TLS (outbound URI sips:) registers
 * from the app's endpoint at SIPp (the registrar, behind a TLS front: Debian's SIPp has no TLS),
 * whose certificate the app trusts through SIP_TLS_CA; the card says registered and deleting the
 * trunk removes the binding. A server without a certificate says why such a trunk cannot register.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { registrar } from "../../../../tests/fakes/sipp-registrar.ts";
import { makeCertificate, type TestCertificate } from "../../../../tests/fakes/tls-cert.ts";
import { startTlsFront } from "../../../../tests/fakes/tls-front.ts";
import { until } from "../../../../tests/until.ts";
import { SIP_REGISTRATION_ERRORS, type SipTrunk } from "../../../shared/sip-trunks.ts";

let ours: TestCertificate;
let theirs: TestCertificate;
const apps: TestApp[] = [];

beforeAll(async () => {
  [ours, theirs] = await Promise.all([makeCertificate(), makeCertificate()]);
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await Promise.all([ours, theirs].map((c) => c?.remove()));
});

/** An app with SIP started (over TLS too when `tls`), and its owner's API. */
async function sipApp(tls: boolean) {
  const { app } = await buildTestApp();
  apps.push(app);
  const { cookie } = await signUpAndLogIn(app);
  const started = await app.sip.start({
    host: "127.0.0.1",
    port: 0,
    publicAddress: "127.0.0.1",
    rtpPorts: { min: 32000, max: 32999 },
    tls: tls ? { certFile: ours.certFile, keyFile: ours.keyFile, port: 0, caFile: theirs.certFile, srtp: "optional" } : undefined,
  });
  expect(started).toBe(true);
  const api = (method: "GET" | "POST" | "DELETE", url: string, payload?: object) => app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
  const addTrunk = async (outboundUri: string) => {
    const res = await api("POST", "/api/sip-trunks", { name: "Carrier", transport: "tls", outbound_uri: outboundUri, outbound_username: "trunkuser", outbound_password: "s3cret", register: true, register_expires: 300 });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as SipTrunk;
  };
  const trunkState = (id: string) => async () => ((await api("GET", "/api/sip-trunks")).json().data as SipTrunk[]).find((t) => t.id === id);
  return { api, addTrunk, trunkState };
}

describe("trunks that register over TLS", () => {
  it("registers over TLS at a registrar whose certificate SIP_TLS_CA trusts, and un-registers when the trunk is deleted", async () => {
    const { api, addTrunk, trunkState } = await sipApp(true);
    const sipp = await startSipp({ target: "", transport: "TCP", scenario: registrar({ aor: "sips:trunkuser@127.0.0.1", expires: 300, refreshes: 0, grantS: 300 }), timeoutS: 15 });
    const front = await startTlsFront(theirs, sipp.port);
    try {
      const trunk = await addTrunk(`sips:127.0.0.1:${front.port}`);
      await until("the trunk is registered", trunkState(trunk.id), (t) => t?.registration_state === "registered");
      expect(await api("DELETE", `/api/sip-trunks/${trunk.id}`)).toMatchObject({ statusCode: 204 });
      const run = await sipp.done;
      expect(run.code, run.log).toBe(0);
    } finally {
      await front.close();
    }
  });

  it("does not register over TLS with a registrar whose certificate it does not trust", async () => {
    const { addTrunk, trunkState } = await sipApp(true);
    const sipp = await startSipp({ target: "", transport: "TCP", scenario: registrar({ aor: "sips:trunkuser@127.0.0.1", expires: 300, refreshes: 0 }), timeoutS: 5 });
    const stranger = await makeCertificate();
    const front = await startTlsFront(stranger, sipp.port);
    try {
      const trunk = await addTrunk(`sips:127.0.0.1:${front.port}`);
      const failed = await until("the registration failed", trunkState(trunk.id), (t) => t?.registration_state === "failed");
      expect(failed!.last_error).toBe(SIP_REGISTRATION_ERRORS.untrusted(`sips:127.0.0.1:${front.port}`, "self-signed certificate"));
      expect((await sipp.done).code).not.toBe(0);
    } finally {
      await front.close();
      await stranger.remove();
    }
  });

  it("says why a TLS trunk cannot register on a server without a certificate", async () => {
    const { addTrunk, trunkState } = await sipApp(false);
    const trunk = await addTrunk("sips:127.0.0.1:5999");
    const failed = await until("the registration failed", trunkState(trunk.id), (t) => t?.registration_state === "failed");
    expect(failed!.last_error).toBe(SIP_REGISTRATION_ERRORS.tls);
  });
});
