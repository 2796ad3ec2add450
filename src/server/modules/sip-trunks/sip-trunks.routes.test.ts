import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import { joinAs } from "../../../../tests/team.ts";
import { PERMISSIONS } from "../../../shared/roles.ts";
import { MAX_SIP_TRUNKS, SIP_NUMBER_MESSAGES, SIP_TRUNK_MESSAGES, type SipTrunk } from "../../../shared/sip-trunks.ts";
import type { PhoneNumber } from "../../../shared/phone-numbers.ts";
import { assistants, auditLog, sipTrunks } from "../../db/schema.ts";

const file = useTestApp({ config: { SIP_PUBLIC_ADDRESS: "sip.example.com", SIP_PORT: "5080" } });

const full = {
  name: "FreePBX",
  inbound_addresses: ["203.0.113.10", "198.51.100.0/24", "2001:DB8::/32"],
  inbound_username: "freepbx",
  inbound_password: "in-secret-1",
  outbound_uri: "sip:pbx.example.com:5060;transport=udp",
  outbound_username: "switchboard",
  outbound_password: "out-secret-2",
  register: true,
  register_expires: 600,
  caller_id: "+1 (415) 555-0100",
  prefix: "9",
  transport: "udp",
};

async function owner() {
  const user = await signUpAndLogIn(file.app);
  const [desk] = await file.db.insert(assistants).values({ organizationId: user.organizationId, name: "Desk", model: "gpt-realtime" }).returning();
  return { ...user, assistantId: desk!.id };
}

async function addTrunk(who: { cookie: string }, body: object = full): Promise<SipTrunk> {
  return expectBody(await file.as(who).post("/api/sip-trunks", body), 201);
}

describe("/api/sip-trunks", () => {
  it("adds a trunk with every field, never answering a password, and lists, reads, changes and deletes it", async () => {
    const who = await owner();
    const trunk = await addTrunk(who);
    expect(trunk).toMatchObject({
      name: "FreePBX",
      inbound_addresses: ["203.0.113.10", "198.51.100.0/24", "2001:db8::/32"],
      inbound_username: "freepbx",
      has_inbound_password: true,
      outbound_uri: "sip:pbx.example.com:5060;transport=udp",
      outbound_username: "switchboard",
      has_outbound_password: true,
      register: true,
      register_expires: 600,
      caller_id: "+14155550100",
      prefix: "9",
      transport: "udp",
      transfer_method: "refer",
      registration_state: "unregistered",
      last_options_at: null,
      last_error: null,
      numbers: [],
    });
    expect(JSON.stringify(trunk)).not.toMatch(/secret/);
    expect((await file.as(who).get("/api/sip-trunks")).json().data).toEqual([trunk]);
    expect((await file.as(who).get(`/api/sip-trunks/${trunk.id}`)).json()).toEqual(trunk);

    // A change of the name keeps the passwords; null removes one (with its username).
    const renamed = await file.as(who).patch(`/api/sip-trunks/${trunk.id}`, { name: "FreePBX main" });
    expect(renamed.json()).toMatchObject({ name: "FreePBX main", has_inbound_password: true, has_outbound_password: true });
    const open = await file.as(who).patch(`/api/sip-trunks/${trunk.id}`, { inbound_username: null, inbound_password: null });
    expect(open.json()).toMatchObject({ inbound_username: null, has_inbound_password: false });
    // A trunk that takes REFER may still have transfers bridged here (the person hears the briefing).
    const bridged = await file.as(who).patch(`/api/sip-trunks/${trunk.id}`, { transfer_method: "bridge" });
    expect(bridged.json()).toMatchObject({ transfer_method: "bridge", has_outbound_password: true });
    const [row] = await file.db.select().from(sipTrunks).where(eq(sipTrunks.id, trunk.id));
    expect(row!.outboundPasswordEncrypted).not.toContain("out-secret-2");

    expect((await file.as(who).delete(`/api/sip-trunks/${trunk.id}`)).statusCode).toBe(204);
    expect((await file.as(who).get(`/api/sip-trunks/${trunk.id}`)).statusCode).toBe(404);

    const actions = (await file.db.select().from(auditLog).where(eq(auditLog.organizationId, who.organizationId))).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(["sip_trunk.created", "sip_trunk.updated", "sip_trunk.deleted"]));
    const details = (await file.db.select().from(auditLog).where(eq(auditLog.organizationId, who.organizationId))).map((e) => JSON.stringify(e.details));
    expect(details.join(" ")).not.toMatch(/secret/);
  });

  it("says what is wrong in the user's words, and saves nothing", async () => {
    const who = await owner();
    const cases: [object, string][] = [
      [{ name: "" }, SIP_TRUNK_MESSAGES.nameRequired],
      [{ name: "x", inbound_addresses: ["10.0.0.0/33"] }, SIP_TRUNK_MESSAGES.invalidAddress("10.0.0.0/33")],
      [{ name: "x", inbound_addresses: ["pbx.example.com"] }, SIP_TRUNK_MESSAGES.invalidAddress("pbx.example.com")],
      [{ name: "x", outbound_uri: "http://pbx.example.com" }, SIP_TRUNK_MESSAGES.invalidUri],
      [{ name: "x", outbound_uri: "sip:pbx example.com" }, SIP_TRUNK_MESSAGES.invalidUri],
      [{ name: "x", inbound_username: "u", inbound_password: "p".repeat(129) }, SIP_TRUNK_MESSAGES.passwordTooLong],
      [{ name: "x", inbound_username: "u" }, SIP_TRUNK_MESSAGES.inboundUserWithoutPassword],
      [{ name: "x", register: true }, SIP_TRUNK_MESSAGES.registerNeedsUri],
      [{ name: "x", caller_id: "555" }, SIP_TRUNK_MESSAGES.invalidCallerId],
      [{ name: "x", register_expires: 10 }, SIP_TRUNK_MESSAGES.invalidExpires],
      [{ name: "x", transport: "sctp" }, SIP_TRUNK_MESSAGES.invalidTransport],
      [{ name: "x", transfer_method: "attended" }, SIP_TRUNK_MESSAGES.invalidTransferMethod],
    ];
    for (const [body, message] of cases) {
      const res = await file.as(who).post("/api/sip-trunks", body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(errorOf(res).message, JSON.stringify(body)).toBe(message);
    }
    const trunk = await addTrunk(who, { name: "Plain" });
    const half = await file.as(who).patch(`/api/sip-trunks/${trunk.id}`, { outbound_password: "only-a-password" });
    expect(errorOf(half).message).toBe(SIP_TRUNK_MESSAGES.outboundPasswordWithoutUser);
    expect((await file.as(who).get("/api/sip-trunks")).json().data).toEqual([trunk]);
  });

  it("links SIP numbers to an assistant; a number is on one trunk only, and a trunk in use is not deleted", async () => {
    const who = await owner();
    const trunk = await addTrunk(who);
    const other = await addTrunk(who, { name: "Telnyx" });
    const add = (body: object) => file.as(who).post("/api/phone-numbers", { provider: "sip", assistant_id: who.assistantId, ...body });
    const res = await add({ sip_trunk_id: trunk.id, phone_number: "+1 415 555 0123" });
    expect(res.statusCode, res.body).toBe(201);
    const number: PhoneNumber = res.json();
    expect(number).toMatchObject({ phone_number: "+14155550123", provider: "sip", sip_trunk_id: trunk.id, sip_trunk_name: "FreePBX", status: "active", country_code: null, assistant_name: "Desk" });
    expect((await add({ sip_trunk_id: trunk.id, phone_number: "201" })).statusCode).toBe(201);

    const again = await add({ sip_trunk_id: other.id, phone_number: "+14155550123" });
    expect(again.statusCode).toBe(409);
    expect(errorOf(again).message).toBe(SIP_NUMBER_MESSAGES.alreadyOnTrunk("+14155550123", "FreePBX"));
    expect(errorOf(await add({ sip_trunk_id: trunk.id, phone_number: "1" })).message).toBe(SIP_NUMBER_MESSAGES.invalidNumber);

    const listed: PhoneNumber[] = (await file.as(who).get("/api/phone-numbers")).json().data;
    expect(listed.map((n) => [n.phone_number, n.sip_trunk_name])).toEqual(expect.arrayContaining([["+14155550123", "FreePBX"], ["201", "FreePBX"]]));
    expect((await file.as(who).get(`/api/sip-trunks/${trunk.id}`)).json().numbers.map((n: { phone_number: string }) => n.phone_number)).toEqual(["+14155550123", "201"]);

    const refused = await file.as(who).delete(`/api/sip-trunks/${trunk.id}`);
    expect(refused.statusCode).toBe(409);
    expect(errorOf(refused).message).toBe(SIP_TRUNK_MESSAGES.inUse(["+14155550123", "201"]));
    expect((await file.as(who).get(`/api/sip-trunks/${trunk.id}`)).statusCode).toBe(200);

    // Deleting the numbers frees the trunk (a SIP number asks no carrier anything).
    for (const n of listed) expect((await file.as(who).delete(`/api/phone-numbers/${n.id}`)).statusCode).toBe(204);
    expect((await file.as(who).delete(`/api/sip-trunks/${trunk.id}`)).statusCode).toBe(204);
  });

  it("keeps each organisation's trunks to itself: another's id answers 404 and cannot carry a number", async () => {
    const mine = await owner();
    const theirs = await owner();
    const trunk = await addTrunk(theirs);
    for (const res of [
      await file.as(mine).get(`/api/sip-trunks/${trunk.id}`),
      await file.as(mine).patch(`/api/sip-trunks/${trunk.id}`, { name: "Mine now" }),
      await file.as(mine).delete(`/api/sip-trunks/${trunk.id}`),
      await file.as(mine).get("/api/sip-trunks/not-a-uuid"),
    ]) {
      expect(res.statusCode).toBe(404);
    }
    expect((await file.as(mine).get("/api/sip-trunks")).json().data).toEqual([]);
    const borrowed = await file.as(mine).post("/api/phone-numbers", { provider: "sip", sip_trunk_id: trunk.id, phone_number: "+14155550999", assistant_id: mine.assistantId });
    expect(borrowed.statusCode).toBe(400);
    expect(errorOf(borrowed).message).toBe(SIP_NUMBER_MESSAGES.unknownTrunk);
    expect((await file.as(theirs).get(`/api/sip-trunks/${trunk.id}`)).json().name).toBe("FreePBX");
  });

  it("lets builders manage trunks and viewers only read them", async () => {
    const admin = await owner();
    const trunk = await addTrunk(admin);
    const viewer = await joinAs(file.app, admin, "viewer");
    const builder = await joinAs(file.app, admin, "builder");
    expect((await file.as(builder).patch(`/api/sip-trunks/${trunk.id}`, { name: "Built" })).statusCode).toBe(200);
    expect((await file.as(viewer).get("/api/sip-trunks")).json().data.map((t: SipTrunk) => t.id)).toEqual([trunk.id]);
    const refused = await file.as(viewer).post("/api/sip-trunks", { name: "Nope" });
    expect(refused.statusCode).toBe(403);
    expect(errorOf(refused).message).toBe(PERMISSIONS.build.message);
    expect((await file.as(viewer).delete(`/api/sip-trunks/${trunk.id}`)).statusCode).toBe(403);
  });

  it("stops at the per-organisation limit", async () => {
    const who = await owner();
    await file.db.insert(sipTrunks).values(Array.from({ length: MAX_SIP_TRUNKS }, (_, i) => ({ organizationId: who.organizationId, name: `T${i}` })));
    const res = await file.as(who).post("/api/sip-trunks", { name: "One more" });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).message).toBe(SIP_TRUNK_MESSAGES.tooMany);
  });

  it("says where trunks send calls, and that no SIP listener runs on an app that started none", async () => {
    const who = await owner();
    expect((await file.as(who).get("/api/sip-trunks/listener")).json()).toEqual({ enabled: false, public_address: "sip.example.com", port: 5080, tls_port: null, transports: [] });
  });
});
