/**
 * SIP over TLS with SRTP, against baresip (a real phone) whose account insists on SRTP
 * (mediaenc=srtp-mand): it calls a SIP number over TLS and the assistant answers, and the
 * assistant calls it over TLS through a trunk whose outbound URI is sips:. Certificates are made
 * at test time; each side trusts the other's through its CA setting (SIP_TLS_CA for ours). What a
 * user would notice: the call connects, each side hears the other, and an SRTP offer over plain
 * UDP is refused rather than sent with its keys in clear.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startBaresip, BARESIP_TONE_HZ } from "../../../../tests/fakes/baresip.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { sipLine, startSip } from "../../../../tests/fakes/sip-app.ts";
import { makeCertificate, type TestCertificate } from "../../../../tests/fakes/tls-cert.ts";
import { startPhoneApp, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { toneShare, toneTimes } from "../../../../tests/tone-share.ts";
import { until } from "../../../../tests/until.ts";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import { SIP_OUTBOUND_FAILURES } from "../../../shared/sip-trunks.ts";
import { calls } from "../../db/schema.ts";
import { mulawToPcm16 } from "../../voice/audio.ts";

const NUMBER = "+15550175";
const CALLEE = "+15557650175";
/** The fake provider's greeting is a tone of this pitch. */
const GREETING_HZ = 440;
let fake: FakeRealtime;
let app: PhoneApp;
let line: Awaited<ReturnType<typeof sipLine>>;
let ours: TestCertificate;
let phones: TestCertificate;
let untrusted: TestCertificate;
let port: number;
let tlsPort: number;

beforeAll(async () => {
  [ours, phones, untrusted] = await Promise.all([makeCertificate(), makeCertificate(), makeCertificate()]);
  fake = await startFakeRealtime({ apiKey: "sk-sip-tls" });
  app = await startPhoneApp(fake);
  line = await sipLine(app, fake.apiKey, NUMBER, { inbound_addresses: ["127.0.0.0/8"] });
  port = await startSip(app, { min: 45000, max: 45999 }, { certFile: ours.certFile, keyFile: ours.keyFile, port: 0, caFile: phones.certFile, srtp: "optional" });
  tlsPort = app.app.sip.tlsPort!;
});
afterAll(async () => {
  await closeInOrder(app.app, fake);
  await Promise.all([ours, phones, untrusted].map((c) => c?.remove()));
});

const api = (method: "GET" | "POST", url: string, payload?: object) => app.app.inject({ method, url, headers: { cookie: line.owner.cookie }, ...(payload ? { payload } : {}) });

/** baresip heard the greeting: the fake's tone, in what it decrypted and decoded from our SRTP. */
function expectGreetingHeard(heard: { samples: Int16Array; sampleRate: number }) {
  expect(toneTimes(heard, GREETING_HZ).length).toBeGreaterThan(2);
}

/** The assistant heard baresip's sine, which reached it only through SRTP we decrypted. */
async function expectCallerHeard(connection: number) {
  const conn = await fake.connection(connection);
  await conn.waitFor("input_audio_buffer.append", 30);
  const appended = conn.receivedOf("input_audio_buffer.append").slice(10, 30);
  const heard = mulawToPcm16(Buffer.concat(appended.map((e) => Buffer.from(String(e["audio"]), "base64"))));
  expect(toneShare(heard, 8000, BARESIP_TONE_HZ)).toBeGreaterThan(0.8);
  return conn;
}

/** The fake sends its 400 ms greeting at once; we play it to the phone in real time, so give it that time and more. */
async function greetingPlayed(conn: Awaited<ReturnType<FakeRealtime["connection"]>>) {
  await until("the greeting is out", async () => conn.sentOf("response.output_audio.done").length, (n) => n > 0);
  await new Promise((r) => setTimeout(r, 2000));
}

/**
 * Once baresip's call is up: each side hears the other, baresip reports SRTP with the suite we
 * answered, and baresip hangs up.
 */
async function talkOverSrtp(phone: Awaited<ReturnType<typeof startBaresip>>, connections: number) {
  await phone.event("CALL_ESTABLISHED", 15_000);
  const conn = await expectCallerHeard(connections);
  await greetingPlayed(conn);
  // baresip says so when its media is SRTP with the suite we answered.
  expect(phone.output).toMatch(/SRTP is Enabled \(cryptosuite=AES_CM_128_HMAC_SHA1_80\)/);
  phone.command("hangup");
  await phone.event("CALL_CLOSED");
  expectGreetingHeard((await phone.stop())!);
}

it("answers baresip's call over TLS with SRTP: the listener is reported, each side hears the other", async () => {
  const listener = await api("GET", "/api/sip-trunks/listener");
  expect(listener.json()).toMatchObject({ enabled: true, port, tls_port: tlsPort, transports: ["udp", "tcp", "tls"] });
  fake.script = {};
  const phone = await startBaresip({ tls: { certificate: phones.bothFile, ca: ours.certFile }, srtp: true });
  try {
    const connections = fake.connections.length;
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${tlsPort};transport=tls`);
    await talkOverSrtp(phone, connections);
  } finally {
    await phone.stop();
  }
  const record = await until(
    "the call's record is closed",
    async () => (await app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId)))[0],
    (row) => !!row?.endTime && row.cost !== null,
  );
  expect(record).toMatchObject({ carrier: "sip", endedReason: "Caller hung up" });
});

it("refuses an SRTP offer over plain UDP (488): its keys would cross the network in clear", async () => {
  const phone = await startBaresip({ srtp: true });
  try {
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
    const closed = await phone.event("CALL_CLOSED", 15_000);
    expect(String(closed.param)).toContain("488");
  } finally {
    await phone.stop();
  }
});

it("calls baresip over TLS through a sips: trunk, with SRTP: it answers, hears the greeting, and the assistant hears it", async () => {
  fake.script = {};
  const phone = await startBaresip({ autoAnswer: true, user: CALLEE, tls: { certificate: phones.bothFile, ca: ours.certFile }, srtp: true });
  try {
    await line.updateTrunk({ outbound_uri: `sips:127.0.0.1:${phone.tlsPort}` });
    const connections = fake.connections.length;
    const res = await api("POST", "/api/calls/outbound", { assistant_id: line.assistantId, phone_number_id: line.numberId, to: CALLEE });
    expect(res.statusCode, res.body).toBe(201);
    await talkOverSrtp(phone, connections);
  } finally {
    await phone.stop();
  }
});

it("does not call a trunk whose certificate it cannot trust: the call fails at once as unreachable", async () => {
  const phone = await startBaresip({ autoAnswer: true, user: CALLEE, tls: { certificate: untrusted.bothFile, ca: ours.certFile }, srtp: true });
  try {
    await line.updateTrunk({ outbound_uri: `sip:127.0.0.1:${phone.tlsPort};transport=tls` });
    const res = await api("POST", "/api/calls/outbound", { assistant_id: line.assistantId, phone_number_id: line.numberId, to: CALLEE });
    expect(res.statusCode, res.body).toBe(201);
    const id = (res.json() as { id: string }).id;
    const record = await until(
      "the call's record is closed",
      async () => (await app.db.select().from(calls).where(eq(calls.id, id)))[0],
      (row) => !!row?.endTime,
    );
    expect(record.endedReason).toBe(OUTBOUND_ENDED.failed(SIP_OUTBOUND_FAILURES.unreachable(408)));
    expect(phone.events.some((e) => e.type === "CALL_INCOMING")).toBe(false);
  } finally {
    await phone.stop();
  }
});
