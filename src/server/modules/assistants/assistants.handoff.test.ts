import { describe, expect, it } from "vitest";
import { errorOf, useTestApp } from "../../../../tests/harness.ts";
import { TRANSFER_MESSAGES, type Assistant } from "../../../shared/assistants.ts";

/** Hand-off settings of an assistant: transfer destinations and the two switches. */

const file = useTestApp({ users: ["Alice"] });
const alice = () => file.as(file.users.Alice);

const billing = { label: "Billing team", phone_number: "+442071234567", when_to_use: "When the caller disputes a charge" };

describe("hand-off settings", () => {
  it("start with no destinations, end-call allowed and keypad on", async () => {
    const res = await alice().post("/api/assistants", { name: "Plain" });
    expect(res.statusCode).toBe(201);
    const a = res.json<Assistant>();
    expect(a.transfer_destinations).toEqual([]);
    expect(a.allow_end_call).toBe(true);
    expect(a.keypad_input).toBe(true);
  });

  it("stores destinations (numbers typed with spaces become E.164) and the switches, and reads them back", async () => {
    const res = await alice().post("/api/assistants", {
      name: "Front desk",
      transfer_destinations: [{ ...billing, phone_number: "+44 20 7123 4567" }],
      allow_end_call: false,
      keypad_input: false,
    });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<Assistant>();
    const read = (await alice().get(`/api/assistants/${created.id}`)).json<Assistant>();
    expect(read.transfer_destinations).toEqual([billing]);
    expect(read.allow_end_call).toBe(false);
    expect(read.keypad_input).toBe(false);

    const patched = await alice().patch(`/api/assistants/${created.id}`, { keypad_input: true, transfer_destinations: [] });
    expect(patched.statusCode).toBe(200);
    expect(patched.json<Assistant>()).toMatchObject({ transfer_destinations: [], allow_end_call: false, keypad_input: true });
  });

  it("takes a PBX's queue or extension as a SIP address, kept as written with its scheme in lower case", async () => {
    const queue = { label: "Sales queue", phone_number: " SIP:sales-queue@pbx.example.com;transport=tcp ", when_to_use: "When the caller wants to buy" };
    const extension = { label: "Reception", phone_number: "sips:+4420@10.0.0.5:5061", when_to_use: "When nobody else fits" };
    const res = await alice().post("/api/assistants", { name: "PBX desk", transfer_destinations: [queue, extension] });
    expect(res.statusCode, res.body).toBe(201);
    const read = (await alice().get(`/api/assistants/${res.json<Assistant>().id}`)).json<Assistant>();
    expect(read.transfer_destinations).toEqual([{ ...queue, phone_number: "sip:sales-queue@pbx.example.com;transport=tcp" }, extension]);
  });

  it("refuses bad destinations with a clear 400 and saves nothing", async () => {
    const created = (await alice().post("/api/assistants", { name: "Keep", transfer_destinations: [billing] })).json<Assistant>();
    const cases: Array<[unknown, string]> = [
      [[{ ...billing, phone_number: "020 7123 4567" }], TRANSFER_MESSAGES.phoneInvalid],
      [[{ ...billing, phone_number: "+0123456789" }], TRANSFER_MESSAGES.phoneInvalid],
      [[{ ...billing, phone_number: "+1234567890123456" }], TRANSFER_MESSAGES.phoneInvalid],
      [[{ ...billing, phone_number: "sip:queue pbx.example.com" }], TRANSFER_MESSAGES.sipInvalid],
      [[{ ...billing, phone_number: "sip:queue@" }], TRANSFER_MESSAGES.sipInvalid],
      [[{ ...billing, phone_number: "sips:queue@pbx.example.com?Subject=hi" }], TRANSFER_MESSAGES.sipInvalid],
      [[{ ...billing, phone_number: `sip:${"q".repeat(300)}@pbx.example.com` }], TRANSFER_MESSAGES.sipInvalid],
      [[{ ...billing, label: "  " }], TRANSFER_MESSAGES.labelRequired],
      [[{ ...billing, when_to_use: "" }], TRANSFER_MESSAGES.whenRequired],
      [[billing, { ...billing, label: "billing TEAM", phone_number: "+15550100" }], TRANSFER_MESSAGES.duplicateLabel],
      ["Billing", "transfer_destinations must be a list"],
    ];
    for (const [destinations, message] of cases) {
      const res = await alice().patch(`/api/assistants/${created.id}`, { transfer_destinations: destinations });
      expect(res.statusCode, JSON.stringify(destinations)).toBe(400);
      expect(errorOf(res).message).toContain(message);
    }
    const bad = await alice().patch(`/api/assistants/${created.id}`, { allow_end_call: "yes" });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).message).toContain("allow_end_call must be true or false");
    const read = (await alice().get(`/api/assistants/${created.id}`)).json<Assistant>();
    expect(read.transfer_destinations).toEqual([billing]);
    expect(read.allow_end_call).toBe(true);
  });
});
