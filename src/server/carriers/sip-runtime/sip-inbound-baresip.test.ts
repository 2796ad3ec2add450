/**
 * baresip, a real SIP phone, calls an assistant through the app's SIP endpoint (started as
 * main.ts starts it, on a free port), with the fake OpenAI Realtime server as the provider. What
 * a caller would notice: the call is answered, the greeting is heard in the RTP, the assistant
 * hears the caller and the keys pressed, a hang-up ends the call, and the record says so.
 */
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startBaresip } from "../../../../tests/fakes/baresip.ts";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { firstSoundShare, toneShare } from "../../../../tests/tone-share.ts";
import { calls } from "../../db/schema.ts";
import { mulawToPcm16 } from "../../voice/audio.ts";

const NUMBER = "+15550100";
let fake: FakeRealtime;
let app: PhoneApp;
let line: SipLine;
let port: number;

beforeAll(async () => {
  ({ fake, app, line, port } = await startSipLine({ apiKey: "sk-sip-test", number: NUMBER, trunk: { inbound_addresses: ["127.0.0.0/8"] }, assistant: { keypad_input: true }, rtpPorts: { min: 40000, max: 44999 } }));
});
let closed = false;
afterAll(() => closeInOrder(closed ? undefined : app.app, fake));

it("answers baresip's call with the assistant: the greeting is heard, the caller and their keys reach the assistant, the hang-up ends the call and the record", async () => {
  fake.script = {};
  const phone = await startBaresip();
  const connections = fake.connections.length;
  phone.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
  await phone.event("CALL_ESTABLISHED");
  const conn = await fake.connection(connections);

  // The assistant hears baresip's 440 Hz sine, in µ-law as the session asked for.
  await conn.waitFor("input_audio_buffer.append", 30);
  const appended = conn.receivedOf("input_audio_buffer.append").slice(10, 30);
  const heard = mulawToPcm16(Buffer.concat(appended.map((e) => Buffer.from(String(e["audio"]), "base64"))));
  expect(toneShare(heard, 8000, 440)).toBeGreaterThan(0.8);

  phone.command("sndcode", "4");
  await new Promise((r) => setTimeout(r, 250));
  phone.command("sndcode", "2");
  const pressed = await conn.waitFor("conversation.item.create", 0, 8000);
  expect(JSON.stringify(pressed)).toContain("The caller pressed 42");

  phone.command("hangup");
  await phone.event("CALL_CLOSED");
  // baresip heard the greeting (the fake speaks a 440 Hz tone) in what it decoded from our RTP.
  const decoded = (await phone.stop())!;
  expect(firstSoundShare(decoded, 440)).toBeGreaterThan(0.8);

  const record = await waitForRecord(line.numberId);
  expect(record).toMatchObject({ callerNumber: "phone", calledNumber: NUMBER, assistantId: line.assistantId, carrier: "sip", providerCallSid: null });
  expect(record.sipCallId).toBeTruthy();
  expect(record.endedReason).toBe("Caller hung up");

  // The recording's caller channel (left) holds what baresip sent: its 440 Hz sine.
  const detail = await app.app.inject({ url: `/api/calls/${record.id}`, headers: { cookie: line.owner.cookie } });
  const media = await app.app.inject({ url: (detail.json() as { recording_url: string }).recording_url });
  const wav = media.rawPayload;
  expect(wav.subarray(0, 4).toString()).toBe("RIFF");
  const stereo = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length - ((wav.length - 44) % 4)));
  const left = Int16Array.from({ length: stereo.length / 2 }, (_, i) => stereo[i * 2]!);
  expect(toneShare(left, 8000, 440)).toBeGreaterThan(0.8);
});

it("ends a live SIP call with a BYE when the server shuts down", async () => {
  fake.script = {};
  const phone = await startBaresip();
  try {
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
    await phone.event("CALL_ESTABLISHED");
    await fake.connection(1);
    closed = true;
    const closing = app.app.close();
    // baresip sees the call end (our BYE), not a silence it must time out on.
    await phone.event("CALL_CLOSED");
    await closing;
  } finally {
    await phone.stop();
  }
});

async function waitForRecord(phoneNumberId: string) {
  for (const started = Date.now(); Date.now() - started < 5000; await new Promise((r) => setTimeout(r, 25))) {
    const [row] = await app.db.select().from(calls).where(eq(calls.phoneNumberId, phoneNumberId));
    if (row?.endTime && row.cost !== null) return row;
  }
  throw new Error("the call was not recorded");
}
