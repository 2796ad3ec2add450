/**
 * The trunk card's "last OPTIONS seen", in the real app with SIPp pinging from 127.0.0.1: a trunk
 * whose source addresses (or outbound address) hold the sender shows the time of the ping; a trunk
 * elsewhere stays "never"; pings within the minute do not rewrite it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { optionsPing } from "../../../../tests/fakes/sipp-options.ts";
import { until } from "../../../../tests/until.ts";
import type { SipTrunk } from "../../../shared/sip-trunks.ts";

let app: TestApp;
let cookie: string;
let target: string;

beforeAll(async () => {
  app = (await buildTestApp()).app;
  cookie = (await signUpAndLogIn(app)).cookie;
  expect(await app.sip.start({ host: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", rtpPorts: { min: 32000, max: 32999 } })).toBe(true);
  target = `127.0.0.1:${app.sip.port}`;
});
afterAll(() => app.close());

const api = (method: "GET" | "POST", url: string, payload?: object) => app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });

async function addTrunk(fields: Record<string, unknown>): Promise<string> {
  const res = await api("POST", "/api/sip-trunks", { name: "Trunk", ...fields });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

const trunks = async () => new Map(((await api("GET", "/api/sip-trunks")).json().data as SipTrunk[]).map((t) => [t.id, t]));

async function ping() {
  const run = await runSipp({ target, scenario: optionsPing });
  expect(run.code, run.log).toBe(0);
}

it("shows when a trunk last pinged with OPTIONS, for the trunks that send from there only, written at most once a minute", async () => {
  const byAddress = await addTrunk({ inbound_addresses: ["127.0.0.0/8"] });
  const byOutbound = await addTrunk({ outbound_uri: "sip:127.0.0.1:5099" });
  const elsewhere = await addTrunk({ inbound_addresses: ["10.9.0.0/16"], outbound_uri: "sip:10.9.0.1" });
  const before = Date.now();
  // Pinged until seen: the app reads the new trunks' addresses as they are added, not before the POST answers.
  const seen = await until(
    "the pings are seen",
    async () => (await ping(), await trunks()),
    (all) => !!all.get(byAddress)?.last_options_at && !!all.get(byOutbound)?.last_options_at,
  );
  expect(Date.parse(seen.get(byAddress)!.last_options_at!)).toBeGreaterThanOrEqual(before);
  expect(seen.get(elsewhere)!.last_options_at).toBeNull();

  await ping();
  const after = await trunks();
  expect(after.get(byAddress)!.last_options_at).toBe(seen.get(byAddress)!.last_options_at);
  expect(after.get(elsewhere)!.last_options_at).toBeNull();
});
