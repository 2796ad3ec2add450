import { describe, expect, it } from "vitest";
import { decodeTwilioFrame, encodeClear, encodeMark, encodeMedia, streamSidJson } from "./twilio-codec.ts";

describe("Twilio media stream codec", () => {
  it("parses Twilio's messages and refuses what is not one", () => {
    const media = decodeTwilioFrame(JSON.stringify({ event: "media", sequenceNumber: "3", streamSid: "MZ1", media: { track: "inbound", chunk: "2", timestamp: "5", payload: "//8=" } }));
    expect(media).toMatchObject({ event: "media", media: { payload: "//8=" } });
    expect(decodeTwilioFrame(JSON.stringify({ event: "mark", streamSid: "MZ1", mark: { name: "0.1" } }))).toMatchObject({ mark: { name: "0.1" } });
    const start = decodeTwilioFrame(
      JSON.stringify({ event: "start", start: { streamSid: "MZ1", callSid: "CA1", customParameters: { token: "t" }, mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 } } }),
    );
    expect(start).toMatchObject({ event: "start", start: { callSid: "CA1", customParameters: { token: "t" } } });
    for (const junk of ["not json", "{}", JSON.stringify({ event: "media", media: {} }), JSON.stringify({ event: "start", start: {} }), JSON.stringify({ event: "mark" })]) {
      expect(decodeTwilioFrame(junk)).toBeNull();
    }
  });

  it("builds media, mark and clear as JSON text with the stream sid", () => {
    const sid = streamSidJson("MZ1");
    expect(JSON.parse(encodeMedia(sid, Buffer.from([0xff, 0x7f])))).toEqual({ event: "media", streamSid: "MZ1", media: { payload: "/38=" } });
    expect(JSON.parse(encodeMark(sid, "0.7"))).toEqual({ event: "mark", streamSid: "MZ1", mark: { name: "0.7" } });
    expect(JSON.parse(encodeClear(sid))).toEqual({ event: "clear", streamSid: "MZ1" });
    // A sid is Twilio's text: whatever it holds, the messages stay JSON.
    expect(JSON.parse(encodeClear(streamSidJson('MZ"},{"event":"stop')))).toEqual({ event: "clear", streamSid: 'MZ"},{"event":"stop' });
  });
});
