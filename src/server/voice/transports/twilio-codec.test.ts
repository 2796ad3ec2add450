import { describe, expect, it } from "vitest";
import { decodeTwilioFrame, encodeClear, encodeMark, encodeMedia } from "./twilio-codec.ts";

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

  it("reads media and marks from their bytes as a full parse does, whatever their spacing, escapes or odd fields", () => {
    const frames = [
      '{"event":"media","sequenceNumber":"3","media":{"track":"inbound","chunk":"2","timestamp":"5","payload":"//8="},"streamSid":"MZ1"}',
      '{"event":"media","media":{"payload":"//8="},"streamSid":"MZ1"}',
      '{"event":"media","media":{"track":"outbound","payload":"AAAA"}}',
      '{"event":"media","media":{"track":null,"payload":"AAAA"}}',
      '{"event":"media","media":{"payload":"\\/\\/8="}}',
      '{"event": "media", "media": {"track": "inbound", "payload": "//8="}}',
      '{"event":"media","media":{"payload":7}}',
      '{"event":"mark","sequenceNumber":"4","streamSid":"MZ1","mark":{"name":"0.12"}}',
      '{"event":"mark","mark":{"name":"caf\\u00e9"}}',
      '{"event":"mark","mark":{"name":1}}',
      '{"event":"mark","mark":{}}',
    ];
    const used = (frame: ReturnType<typeof decodeTwilioFrame>) =>
      frame && (frame.event === "media" ? { media: { payload: frame.media.payload, track: frame.media.track } } : frame.event === "mark" ? { mark: frame.mark.name } : frame.event);
    for (const text of frames) expect(used(decodeTwilioFrame(Buffer.from(text))), text).toEqual(used(decodeTwilioFrame(text)));
    expect(used(decodeTwilioFrame(Buffer.from(frames[4]!)))).toEqual({ media: { payload: "//8=", track: undefined } });
    expect(decodeTwilioFrame(Buffer.from(frames[3]!))).toBeNull();
  });

  it("builds media, mark and clear as JSON text with the stream sid", () => {
    expect(JSON.parse(encodeMedia("MZ1", Buffer.from([0xff, 0x7f])))).toEqual({ event: "media", streamSid: "MZ1", media: { payload: "/38=" } });
    expect(JSON.parse(encodeMark("MZ1", "0.7"))).toEqual({ event: "mark", streamSid: "MZ1", mark: { name: "0.7" } });
    expect(JSON.parse(encodeClear("MZ1"))).toEqual({ event: "clear", streamSid: "MZ1" });
  });
});
