import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { signUpAndLogIn, useTestApp } from "../../../../tests/harness.ts";
import { sipTrunkInputSchema, type SipTrunkInput } from "../../../shared/sip-trunks.ts";
import { assistants, sipTrunks } from "../../db/schema.ts";
import { createTwilioCarrier } from "../../carriers/twilio/twilio-carrier.ts";
import { createCredentialsService } from "../credentials/credentials.service.ts";
import { createPhoneNumbersService } from "../phone-numbers/phone-numbers.service.ts";
import { createSipTrunksService } from "./sip-trunks.service.ts";

// What the SIP runtime asks of the trunks (no routes): numbers by Request-URI, routes out,
// registrations, and the state it writes back. Trunks and numbers are made the way the API does.
const file = useTestApp();

function services() {
  const ctx = file.app.ctx;
  const trunks = createSipTrunksService({ db: ctx.db, secrets: ctx.secrets, sip: ctx.config.sip });
  const numbers = createPhoneNumbersService({ ...ctx, carriers: { twilio: createTwilioCarrier({ config: ctx.config, credentials: createCredentialsService(ctx) }) }, versions: { exists: async () => true }, sipTrunks: trunks });
  return { trunks, numbers };
}

async function organization() {
  const user = await signUpAndLogIn(file.app);
  const [desk] = await file.db.insert(assistants).values({ organizationId: user.organizationId, name: "Desk", model: "gpt-realtime" }).returning();
  return { organizationId: user.organizationId, assistantId: desk!.id };
}

const trunkInput = (values: Record<string, unknown>): SipTrunkInput => sipTrunkInputSchema.parse({ name: "PBX", ...values });

describe("the SIP runtime's lookups", () => {
  it("finds a number by the Request-URI's user with or without '+', after the trunk's prefix, in every organisation that has it", async () => {
    const { trunks, numbers } = services();
    const a = await organization();
    const b = await organization();
    const trunkA = await trunks.create(a.organizationId, trunkInput({ inbound_addresses: ["203.0.113.0/24", "2001:db8::1"], inbound_username: "pbx-a", inbound_password: "s3cret-a" }));
    const trunkB = await trunks.create(b.organizationId, trunkInput({ name: "Carrier", prefix: "99", inbound_addresses: ["198.51.100.7"] }));
    const e164 = await numbers.addSip(a.organizationId, { provider: "sip", sip_trunk_id: trunkA.id, phone_number: "+14155550111", assistant_id: a.assistantId });
    await numbers.addSip(b.organizationId, { provider: "sip", sip_trunk_id: trunkB.id, phone_number: "+14155550111", assistant_id: b.assistantId });
    const ext = await numbers.addSip(a.organizationId, { provider: "sip", sip_trunk_id: trunkA.id, phone_number: "4711", assistant_id: a.assistantId });

    const plus = await trunks.inboundCandidates("+14155550111");
    expect(plus.map((c) => c.organizationId).sort()).toEqual([a.organizationId, b.organizationId].sort());
    const ofA = plus.find((c) => c.organizationId === a.organizationId)!;
    expect(ofA).toEqual({
      organizationId: a.organizationId,
      phoneNumberId: e164.id,
      phoneNumber: "+14155550111",
      assistantId: a.assistantId,
      assistantVersion: null,
      trunk: { id: trunkA.id, name: "PBX", inboundAddresses: ["203.0.113.0/24", "2001:db8::1"], inboundCredentials: { username: "pbx-a", password: "s3cret-a" } },
    });
    expect((await trunks.inboundCandidates("14155550111")).length).toBe(2);
    // Only trunk B strips 99.
    const prefixed = await trunks.inboundCandidates("9914155550111");
    expect(prefixed.map((c) => c.trunk.id)).toEqual([trunkB.id]);
    expect(prefixed[0]!.trunk.inboundCredentials).toBeNull();
    expect((await trunks.inboundCandidates("4711")).map((c) => c.phoneNumberId)).toEqual([ext.id]);
    for (const nothing of ["4712", "alice", "", "' OR 1=1 --", "+"]) expect(await trunks.inboundCandidates(nothing)).toEqual([]);
  });

  it("routes a SIP number's outbound calls through its own trunk only, with the trunk's secrets opened", async () => {
    const { trunks, numbers } = services();
    const a = await organization();
    const other = await organization();
    const trunk = await trunks.create(
      a.organizationId,
      trunkInput({ outbound_uri: "sip:sip.telnyx.com", outbound_username: "acme", outbound_password: "pa55", caller_id: "+14155550100", prefix: "0", transport: "tcp" }),
    );
    const number = await numbers.addSip(a.organizationId, { provider: "sip", sip_trunk_id: trunk.id, phone_number: "+14155550122", assistant_id: a.assistantId });
    expect(await trunks.outboundRoute(a.organizationId, number.id)).toEqual({
      trunkId: trunk.id,
      organizationId: a.organizationId,
      uri: "sip:sip.telnyx.com",
      credentials: { username: "acme", password: "pa55" },
      callerId: "+14155550100",
      prefix: "0",
      transferMethod: "refer",
      transport: "tcp",
      phoneNumber: "+14155550122",
      assistantId: a.assistantId,
      assistantVersion: null,
    });
    expect(await trunks.outboundRoute(other.organizationId, number.id)).toBeNull();
    expect(await trunks.outboundRoute(a.organizationId, "not-an-id")).toBeNull();
  });

  it("lists the trunks to register and keeps what the runtime reports", async () => {
    const { trunks } = services();
    const a = await organization();
    const registering = await trunks.create(
      a.organizationId,
      trunkInput({ outbound_uri: "sip:registrar.example.net:5080", outbound_username: "u1", outbound_password: "p1", register: true, register_expires: 600 }),
    );
    await trunks.create(a.organizationId, trunkInput({ name: "Static" }));
    const mine = (await trunks.trunksToRegister()).filter((t) => t.organizationId === a.organizationId);
    expect(mine).toEqual([{ trunkId: registering.id, organizationId: a.organizationId, uri: "sip:registrar.example.net:5080", credentials: { username: "u1", password: "p1" }, expires: 600, transport: "udp" }]);

    const seen = new Date("2026-11-28T04:00:00.000Z");
    await trunks.recordState(registering.id, { lastOptionsAt: seen, registrationState: "failed", lastError: "403 Forbidden", lastErrorAt: seen });
    const after = await trunks.get(a.organizationId, registering.id);
    expect(after).toMatchObject({ last_options_at: seen.toISOString(), registration_state: "failed", last_error: "403 Forbidden", last_error_at: seen.toISOString() });
    // What the runtime saw is no change of the user's.
    expect(after.updated_at).toBe(registering.updated_at);
  });

  it("stores passwords sealed: the columns never hold them", async () => {
    const { trunks } = services();
    const a = await organization();
    const trunk = await trunks.create(a.organizationId, trunkInput({ inbound_username: "in", inbound_password: "inbound-pw-123", outbound_uri: "sip:pbx.local", outbound_username: "out", outbound_password: "outbound-pw-456" }));
    const [row] = await file.db.select().from(sipTrunks).where(eq(sipTrunks.id, trunk.id));
    expect(row!.inboundPasswordEncrypted).toMatch(/^v1\./);
    expect(row!.outboundPasswordEncrypted).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain("inbound-pw-123");
    expect(JSON.stringify(row)).not.toContain("outbound-pw-456");
    expect(JSON.stringify(trunk)).not.toContain("pw-");
    expect(trunk).toMatchObject({ has_inbound_password: true, has_outbound_password: true });
  });
});
