/**
 * Who gets through to an assistant over SIP, with SIPp as the trunk (or the stranger): a trunk's
 * address is let in, a digest answer with the trunk's credentials is let in, a wrong one is
 * refused with 403, a full server refuses at once with 503 and Retry-After, and a caller who
 * gives up while the call is set up gets 487. SIPp exits 0 only when every answer was the one expected.
 */
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { authenticatedCall, cancelAtOnce, cdata, challengedThenRefused, inDialog, placeCall, refusedWith, scenario } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { until } from "../../../../tests/until.ts";
import { calls } from "../../db/schema.ts";

/** Holds `table` locked (a transaction's exclusive lock) until `release` settles: every query on it waits meanwhile. */
function holdTable(table: string, release: Promise<void>) {
  let onLocked = () => {};
  const locked = new Promise<void>((resolve) => (onLocked = resolve));
  const done = app.db.transaction(async (tx) => {
    await tx.execute(sql.raw(`lock table ${table} in access exclusive mode`));
    onLocked();
    await release;
  });
  return { locked: Promise.race([locked, done]), done };
}

let fake: FakeRealtime;
let app: PhoneApp;
const NUMBER = "+15550177";
let line: SipLine;
let target: string;
/** SIPp calls our number (its `[service]`). */
const sipp = (scenario: string) => runSipp({ target, scenario, args: ["-s", NUMBER] });

beforeAll(async () => {
  // One line: a call in progress, or a place held for one, fills the server.
  ({ fake, app, line, target } = await startSipLine({ apiKey: "sk-sip-admission", number: NUMBER, config: { MAX_CALLS: "1" }, rtpPorts: { min: 45000, max: 47999 } }));
});
afterAll(() => closeInOrder(app.app, fake));
beforeEach(async () => {
  // One line: the last test's call must have unwound before the next caller rings, or it gets 503.
  await until("a free line", async () => app.app.ctx.liveCalls.hold("probe"), (held) => held);
  app.app.ctx.liveCalls.unhold("probe");
  await line.updateTrunk({ inbound_addresses: ["10.1.0.0/16"], inbound_username: "trunkuser", inbound_password: "s3cret" });
});

it("lets in a trunk that answers the digest challenge with its credentials, and records the call", async () => {
  const run = await sipp(authenticatedCall);
  expect(run.code, run.log).toBe(0);
  const [record] = await app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId));
  expect(record).toMatchObject({ callerNumber: "+15550001111", calledNumber: NUMBER, carrier: "sip" });
});

it("refuses with 403 a caller whose digest answer has the wrong password", async () => {
  const run = await sipp(challengedThenRefused("guessed"));
  expect(run.code, run.log).toBe(0);
});

it("refuses with 403 a caller from no trunk's address when the trunk takes addresses only, whatever it answers to the challenge", async () => {
  await line.updateTrunk({ inbound_username: null, inbound_password: null });
  const run = await sipp(challengedThenRefused("s3cret"));
  expect(run.code, run.log).toBe(0);
});

it("answers 487, never a 200, to a caller who gives up while its call is being set up", async () => {
  await line.updateTrunk({ inbound_addresses: ["127.0.0.1"], inbound_username: null, inbound_password: null });
  // The numbers' table is held while SIPp calls: the server's admission waits on the database, so
  // the CANCEL sent on our 100 Trying always arrives while the call is being set up, however slow
  // the machine. Once released, the set-up must not answer a call whose caller has gone.
  let callerDone = () => {};
  const held = holdTable("phone_numbers", new Promise<void>((resolve) => (callerDone = resolve)));
  await held.locked;
  try {
    const run = await sipp(cancelAtOnce);
    expect(run.code, run.log).toBe(0);
  } finally {
    callerDone();
    await held.done;
  }
});

it("takes a call sent to the Contact a registered trunk was given, for the number in its To", async () => {
  await line.updateTrunk({ inbound_addresses: ["127.0.0.1"], inbound_username: null, inbound_password: null });
  // The Request-URIs name the trunk's username (what we registered); To names the number. The call
  // is answered, and the caller hangs up.
  const answered = scenario(
    "registered-contact",
    `${placeCall()}
    <send retrans="500">${cdata(inDialog("BYE", 2))}</send>
    <recv response="200"/>`,
  );
  const run = await sipp(answered.replaceAll("sip:[service]@[remote_ip]:[remote_port] SIP/2.0", "sip:trunkuser@[remote_ip]:[remote_port] SIP/2.0"));
  expect(run.code, run.log).toBe(0);
});

it("refuses at once with 503 and Retry-After when every line is taken", async () => {
  await line.updateTrunk({ inbound_addresses: ["127.0.0.1"] });
  await until("the line held", async () => app.app.ctx.liveCalls.hold("another-call"), (held) => held);
  try {
    const run = await sipp(refusedWith("503", "Retry-After"));
    expect(run.code, run.log).toBe(0);
  } finally {
    app.app.ctx.liveCalls.unhold("another-call");
  }
});
