import { describe, expect, it } from "vitest";
import { useTestApp } from "../../../../tests/harness.ts";
import { createAssistant } from "../../../../tests/fakes/realtime-app.ts";
import { insertPhoneNumber, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { publicUrlProblem, reachabilityOf, REACHABILITY_TEXTS } from "../../../shared/reachability.ts";

const file = useTestApp({ users: ["Ann"], config: { PUBLIC_URL: "http://localhost:3000" } });

describe("GET /api/telephony/reachability", () => {
  it("says Twilio cannot reach a localhost PUBLIC_URL and names the addresses it would call", async () => {
    const res = await file.as(file.users.Ann).get("/api/telephony/reachability");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ voice_url: "http://localhost:3000/telephony/twilio/voice", stream_url: "ws://localhost:3000/telephony/twilio/media" });
    expect(res.json().problem).toMatch(/only this machine or its network/);
    expect(res.json()).toMatchObject({ dialling: "refused", dialling_note: REACHABILITY_TEXTS.dialRefused(res.json().problem) });
    expect((await file.as(null).get("/api/telephony/reachability")).statusCode).toBe(401);
  });

  it("refuses to dial a Twilio number for a single call or a campaign, saying why and what to set", async () => {
    const ann = file.users.Ann;
    const assistantId = (await createAssistant(file.app, ann)).id;
    const numberId = await insertPhoneNumber(file as unknown as PhoneApp, ann, "+15550100", assistantId);
    const call = await file.as(ann).post("/api/calls/outbound", { assistant_id: assistantId, phone_number_id: numberId, to: "+14155550123" });
    expect(call.statusCode).toBe(409);
    expect(call.json().error.code).toBe("twilio_unreachable");
    expect(call.json().error.message).toContain("Set PUBLIC_URL to a public https:// address");
    const created = await file.as(ann).post("/api/campaigns", {
      name: "Reminders",
      assistant_id: assistantId,
      phone_number_id: numberId,
      contacts_csv: "phone\n+14155550123\n",
      max_concurrent_calls: 1,
      schedule: { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const start = await file.as(ann).post(`/api/campaigns/${created.json().id}/start`, {});
    expect(start.statusCode).toBe(409);
    expect(start.json().error.code).toBe("twilio_unreachable");
    expect((await file.as(ann).get(`/api/campaigns/${created.json().id}`)).json().status).toBe("draft");
    expect((await file.as(ann).get("/api/calls")).json().data).toHaveLength(0);
  });

  it("dials with a warning when TWILIO_API_BASE points at a Twilio-compatible endpoint", () => {
    const reach = reachabilityOf("http://localhost:3000", "http://127.0.0.1:4010/");
    expect(reach.dialling).toBe("warned");
    expect(reach.dialling_note).toBe(REACHABILITY_TEXTS.dialWarned("http://127.0.0.1:4010"));
  });

  it("accepts public https addresses only", () => {
    expect(reachabilityOf("https://calls.example.com/")).toEqual({
      public_url: "https://calls.example.com",
      voice_url: "https://calls.example.com/telephony/twilio/voice",
      stream_url: "wss://calls.example.com/telephony/twilio/media",
      problem: null,
      dialling: "ok",
      dialling_note: null,
    });
    expect(publicUrlProblem("https://abc123.trycloudflare.com")).toBeNull();
    expect(publicUrlProblem("http://switchboard.example.com")).toMatch(/secure \(https:\/\/ and wss:\/\/\)/);
    for (const local of ["https://[::1]:3000", "https://switchboard.local", "https://10.0.0.5", "https://192.168.1.20", "http://localhost:3000"]) {
      expect(publicUrlProblem(local), local).toMatch(/only this machine or its network/);
    }
  });
});
