/**
 * Trunks that register, in the real app: a trunk added over the API with Register on is registered
 * from the app's SIP endpoint at SIPp (the registrar), and GET /api/sip-trunks says so with the time;
 * wrong credentials show as failed with the registrar's refusal; switching Register off, deleting
 * the trunk and shutting down each remove the binding (Expires: 0), as SIPp checks.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp, expectBody } from "../../../../tests/harness.ts";
import { startSipp } from "../../../../tests/fakes/sipp.ts";
import { refusingRegistrar, registrar } from "../../../../tests/fakes/sipp-registrar.ts";
import { until } from "../../../../tests/until.ts";
import { SIP_REGISTRATION_ERRORS, type SipTrunk } from "../../../shared/sip-trunks.ts";

let app: TestApp;
let close: () => Promise<void>;
let cookie: string;

beforeAll(async () => {
  const built = await buildTestApp();
  app = built.app;
  close = () => app.close();
  cookie = (await signUpAndLogIn(app)).cookie;
  expect(await app.sip.start({ host: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", rtpPorts: { min: 31000, max: 31999 } })).toBe(true);
});
afterAll(() => close());

const api = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object) => app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

async function addTrunk(port: number, password = "s3cret"): Promise<SipTrunk> {
  return expectBody(await api("POST", "/api/sip-trunks", { name: "Carrier", outbound_uri: `sip:127.0.0.1:${port}`, outbound_username: "trunkuser", outbound_password: password, register: true, register_expires: 300 }), 201);
}

const trunkState = (id: string) => async () => ((await api("GET", "/api/sip-trunks")).json().data as SipTrunk[]).find((t) => t.id === id);

describe("trunks that register", () => {
  it("registers a trunk added with Register on; the API says registered and when; switching Register off un-registers it", async () => {
    const sipp = await startSipp({ target: "", scenario: registrar({ aor: "sip:trunkuser@127.0.0.1", expires: 300, refreshes: 1 }), timeoutS: 15 });
    const before = Date.now();
    const trunk = await addTrunk(sipp.port);
    // Registered, then refreshed once (the registrar grants 2 s): the time moves on.
    const first = await until("the trunk is registered", trunkState(trunk.id), (t) => t?.registration_state === "registered");
    expect(Date.parse(first!.registration_state_at!)).toBeGreaterThanOrEqual(before);
    await until("the registration is refreshed", trunkState(trunk.id), (t) => t!.registration_state_at! > first!.registration_state_at!);
    const off = await api("PATCH", `/api/sip-trunks/${trunk.id}`, { register: false });
    expect(off.json()).toMatchObject({ register: false, registration_state: "unregistered" });
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    expect(await api("DELETE", `/api/sip-trunks/${trunk.id}`)).toMatchObject({ statusCode: 204 });
  });

  it("shows a registrar's refusal of the password as failed, with the error and its time", async () => {
    const sipp = await startSipp({ target: "", scenario: refusingRegistrar("sip:trunkuser@127.0.0.1", 300) });
    const trunk = await addTrunk(sipp.port, "not-the-password");
    const failed = await until("the registration failed", trunkState(trunk.id), (t) => t?.registration_state === "failed");
    expect(failed).toMatchObject({ last_error: SIP_REGISTRATION_ERRORS.credentials(403) });
    expect(failed!.last_error_at).toBe(failed!.registration_state_at);
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    expect(await api("DELETE", `/api/sip-trunks/${trunk.id}`)).toMatchObject({ statusCode: 204 });
  });

  it("un-registers a trunk when it is deleted", async () => {
    const sipp = await startSipp({ target: "", scenario: registrar({ aor: "sip:trunkuser@127.0.0.1", expires: 300, refreshes: 0, grantS: 300 }), timeoutS: 10 });
    const trunk = await addTrunk(sipp.port);
    await until("the trunk is registered", trunkState(trunk.id), (t) => t?.registration_state === "registered");
    expect(await api("DELETE", `/api/sip-trunks/${trunk.id}`)).toMatchObject({ statusCode: 204 });
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
  });

  it("un-registers every trunk when SIP shuts down, and says so on the trunk", async () => {
    const sipp = await startSipp({ target: "", scenario: registrar({ aor: "sip:trunkuser@127.0.0.1", expires: 300, refreshes: 0, grantS: 300 }), timeoutS: 10 });
    const trunk = await addTrunk(sipp.port);
    await until("the trunk is registered", trunkState(trunk.id), (t) => t?.registration_state === "registered");
    await app.sip.stop();
    const run = await sipp.done;
    expect(run.code, run.log).toBe(0);
    expect(await trunkState(trunk.id)()).toMatchObject({ registration_state: "unregistered" });
  });
});
