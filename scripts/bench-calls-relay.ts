/**
 * Child process of `npm run bench:calls --relay`: a bare pass-through Twilio ↔ OpenAI Realtime
 * relay, the yardstick Switchboard's phone path is measured against. It is what the minimal
 * open-source relays do and nothing more: no accounts, no database, no records, no recording,
 * no tools. The voice webhook answers `<Connect><Stream>`; each media stream opens one provider
 * socket (GA session, µ-law both ways), greets with a `response.create`, forwards the caller's
 * `payload` as `input_audio_buffer.append` and each `delta` as a Twilio `media` followed by a
 * `mark` (two writes), and on `speech_started` clears the caller and truncates at the time
 * elapsed by Twilio's media timestamps since the answer began (the relays' estimate).
 */
import { createServer } from "node:http";
import WebSocket, { WebSocketServer } from "ws";
import type { RelayMessage, RelayRequest } from "./bench-calls-shared.ts";
import { freePort } from "./bench-process.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

const { providerUrl, apiKey } = await nextMessage<RelayRequest, "start">(process, "start");
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;

const server = createServer((req, res) => {
  req.resume();
  res.writeHead(200, { "content-type": "text/xml" });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="ws://127.0.0.1:${port}/media"><Parameter name="token" value="relay"/></Stream></Connect></Response>`,
  );
});
const wss = new WebSocketServer({ server, path: "/media" });

wss.on("connection", (twilio) => {
  const model = "gpt-realtime";
  const openai = new WebSocket(`${providerUrl.replace(/^http/, "ws")}/realtime?model=${model}`, { headers: { authorization: `Bearer ${apiKey}` } });
  let streamSid = "";
  let latestMediaTimestamp = 0;
  let lastAssistantItem: string | null = null;
  let responseStartTimestamp: number | null = null;
  let marks = 0;

  openai.on("open", () => {
    const format = { type: "audio/pcmu" };
    const session = { type: "realtime", model, output_modalities: ["audio"], instructions: "Talk.", audio: { input: { format, turn_detection: { type: "server_vad" } }, output: { format, voice: "marin" } } };
    openai.send(JSON.stringify({ type: "session.update", session }));
    openai.send(JSON.stringify({ type: "response.create", response: { instructions: 'Say "Hello, thanks for calling."' } }));
  });
  openai.on("message", (data) => {
    const event = JSON.parse(data.toString()) as { type: string; delta?: string; item_id?: string };
    if (event.type === "response.output_audio.delta" && event.delta) {
      if (responseStartTimestamp === null) responseStartTimestamp = latestMediaTimestamp;
      lastAssistantItem = event.item_id ?? null;
      twilio.send(JSON.stringify({ event: "media", streamSid, media: { payload: event.delta } }));
      twilio.send(JSON.stringify({ event: "mark", streamSid, mark: { name: `m${marks++}` } }));
    } else if (event.type === "input_audio_buffer.speech_started" && lastAssistantItem && responseStartTimestamp !== null) {
      const elapsed = latestMediaTimestamp - responseStartTimestamp;
      openai.send(JSON.stringify({ type: "conversation.item.truncate", item_id: lastAssistantItem, content_index: 0, audio_end_ms: elapsed }));
      twilio.send(JSON.stringify({ event: "clear", streamSid }));
      lastAssistantItem = null;
      responseStartTimestamp = null;
    }
  });
  openai.on("error", () => twilio.close());
  openai.on("close", () => twilio.close());

  twilio.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { event: string; start?: { streamSid: string }; media?: { payload: string; timestamp: string } };
    if (message.event === "media" && message.media) {
      latestMediaTimestamp = Number(message.media.timestamp);
      if (openai.readyState === WebSocket.OPEN) openai.send(JSON.stringify({ type: "input_audio_buffer.append", audio: message.media.payload }));
    } else if (message.event === "start" && message.start) {
      streamSid = message.start.streamSid;
    }
  });
  twilio.on("close", () => openai.close());
  twilio.on("error", () => openai.close());
});

await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
send(process, { type: "listening", origin } satisfies RelayMessage);
process.on("disconnect", () => process.exit(0));
