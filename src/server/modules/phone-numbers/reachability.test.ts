import { describe, expect, it } from "vitest";
import { useTestApp } from "../../../../tests/harness.ts";
import { publicUrlProblem, reachabilityOf } from "../../../shared/reachability.ts";

const file = useTestApp({ users: ["Ann"], config: { PUBLIC_URL: "http://localhost:3000" } });

describe("GET /api/telephony/reachability", () => {
  it("says Twilio cannot reach a localhost PUBLIC_URL and names the addresses it would call", async () => {
    const res = await file.as(file.users.Ann).get("/api/telephony/reachability");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ voice_url: "http://localhost:3000/telephony/twilio/voice", stream_url: "ws://localhost:3000/telephony/twilio/media" });
    expect(res.json().problem).toMatch(/only this machine or its network/);
    expect((await file.as(null).get("/api/telephony/reachability")).statusCode).toBe(401);
  });

  it("accepts public https addresses only", () => {
    expect(reachabilityOf("https://calls.example.com/")).toEqual({
      public_url: "https://calls.example.com",
      voice_url: "https://calls.example.com/telephony/twilio/voice",
      stream_url: "wss://calls.example.com/telephony/twilio/media",
      problem: null,
    });
    expect(publicUrlProblem("https://abc123.trycloudflare.com")).toBeNull();
    expect(publicUrlProblem("http://switchboard.example.com")).toMatch(/secure \(https:\/\/ and wss:\/\/\)/);
    for (const local of ["https://[::1]:3000", "https://switchboard.local", "https://10.0.0.5", "https://192.168.1.20", "http://localhost:3000"]) {
      expect(publicUrlProblem(local), local).toMatch(/only this machine or its network/);
    }
  });
});
