/**
 * Load from SIPp, an independent SIP implementation, as a trunk: 30 calls placed 10 a second and
 * held together, each streaming µ-law RTP from a file (a 440 Hz tone) for three seconds, then
 * hanging up. Every call is answered (SIPp exits 0 only when all 30 went as written), every
 * assistant hears its caller's tone, and every call is recorded as the caller's hang-up.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { startSipLine, type SipLine } from "../../../../tests/fakes/sip-app.ts";
import { runSipp } from "../../../../tests/fakes/sipp.ts";
import { cdata, inDialog, invite, scenario } from "../../../../tests/fakes/sipp-scenarios.ts";
import type { PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { closeInOrder } from "../../../../tests/close.ts";
import { toneShare } from "../../../../tests/tone-share.ts";
import { until } from "../../../../tests/until.ts";
import { calls } from "../../db/schema.ts";
import { mulawToPcm16, pcm16ToMulaw } from "../../voice/audio.ts";

const NUMBER = "+15550182";
const CALLS = 30;
let fake: FakeRealtime;
let app: PhoneApp;
let line: SipLine;
let target: string;
let dir: string;

beforeAll(async () => {
  ({ fake, app, line, target } = await startSipLine({ apiKey: "sk-sip-load", number: NUMBER, trunk: { inbound_addresses: ["127.0.0.0/8"] }, rtpPorts: { min: 49000, max: 49999 } }));
  dir = await mkdtemp(join(tmpdir(), "sipp-media-"));
});
afterAll(async () => {
  await closeInOrder(app.app, fake);
  await rm(dir, { recursive: true, force: true });
});

/** One second of a 440 Hz tone as raw µ-law (SIPp streams a headerless file as it is). */
function toneFile(): Buffer {
  const samples = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
  return Buffer.from(pcm16ToMulaw(samples));
}

/** A caller whose SDP offers SIPp's streaming port, and who streams `file` (looped, PCMU) for three seconds. */
const streaming = (file: string) =>
  scenario(
    "load-with-rtp",
    `<send retrans="500">${cdata(invite(1).replace("m=audio [media_port]", "m=audio [rtpstream_audio_port]"))}</send>
  <recv response="100" optional="true"/>
  <recv response="180" optional="true"/>
  <recv response="200"/>
  <send>${cdata(inDialog("ACK", 1))}</send>
  <nop><action><exec rtp_stream="${file},-1,0"/></action></nop>
  <pause milliseconds="3000"/>
  <send retrans="500">${cdata(inDialog("BYE", 2))}</send>
  <recv response="200"/>`,
  );

it("answers 30 SIPp calls streaming RTP at once: each assistant hears its caller, each call is recorded", async () => {
  const file = join(dir, "tone.ul");
  await writeFile(file, toneFile());
  const connections = fake.connections.length;
  const run = await runSipp({ target, scenario: streaming(file), calls: CALLS, args: ["-s", NUMBER, "-r", "10"], timeoutS: 30 });
  expect(run.code, run.log).toBe(0);

  const records = await until(
    "every call's record",
    () => app.db.select().from(calls).where(eq(calls.phoneNumberId, line.numberId)),
    (rows) => rows.length === CALLS && rows.every((r) => r.endTime !== null),
  );
  expect(records.every((r) => r.endedReason === "Caller hung up")).toBe(true);

  // Each provider session got its caller's tone (the frames in the middle of the call).
  const sessions = fake.connections.slice(connections);
  expect(sessions).toHaveLength(CALLS);
  for (const session of sessions) {
    const appended = session.receivedOf("input_audio_buffer.append").slice(20, 60);
    const heard = mulawToPcm16(Buffer.concat(appended.map((e) => Buffer.from(String(e["audio"]), "base64"))));
    expect(toneShare(heard, 8000, 440)).toBeGreaterThan(0.8);
  }
});
