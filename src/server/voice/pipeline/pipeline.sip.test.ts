/**
 * A SIP call on a pipeline assistant, end to end: baresip, a real SIP phone, calls the app's SIP
 * endpoint (RTP both ways), with stand-ins speaking Deepgram's live transcription, Chat
 * Completions and ElevenLabs. The stand-in Deepgram "hears" a caller line per stretch of audio
 * (scripted-hearing.ts), and a phone's RTP never stops, so the lines come at a steady pace:
 * the question after the greeting, the interruption while the answer plays, then the transfer.
 * The transfer is a REFER to baresip, which calls the person (a second baresip) itself.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { startPipelineFakes, type PipelineFakes } from "../../../../tests/fakes/pipeline-fakes.ts";
import { createOrderLookup, GREETING, pipelineEngine, startPipelinePhone, expectWholeCallRecord, type PipelinePhone } from "../../../../tests/fakes/pipeline-phone.ts";
import { createAssistant } from "../../../../tests/fakes/realtime-app.ts";
import { addSipNumber, startSip } from "../../../../tests/fakes/sip-app.ts";
import { closedSipRecord, heardSpeechMs, withCallerAndPerson } from "../../../../tests/fakes/sip-engine-call.ts";
import { startToolUpstream, type ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { until } from "../../../../tests/until.ts";
import { callRecordSchema } from "../../../shared/call-records.ts";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";

const NUMBER = "+15550311";
const MS_PER_WORD = 200;
const ANSWER = [
  "Your order forty two left our warehouse on Monday morning.",
  "It is with the courier now and should reach you on Thursday.",
  "You will get a text message with a tracking link before it arrives.",
  "If nobody is home the courier will leave it with a neighbour.",
];
const words = (text: string) => text.split(" ").length;

let line: PipelinePhone;
let port: number;
let fakes: PipelineFakes;
let upstream: ToolUpstream;

beforeAll(async () => {
  fakes = await startPipelineFakes("sip-key");
  fakes.voice.options.msPerWord = MS_PER_WORD;
  upstream = await startToolUpstream();
  line = await startPipelinePhone();
  port = await startSip(line.app, { min: 54000, max: 55999 });
});
afterAll(() => closeInOrder(line.app.app, upstream, fakes, line.realtime));

describe("a SIP call on a pipeline assistant", () => {
  it("greets in the voice, hears the caller, runs a tool, stops its RTP when interrupted, transfers by REFER, and keeps the record", async () => {
    await withCallerAndPerson(undefined, async ({ caller, person, personAddress: billing }) => {
      const tool = await createOrderLookup(line, upstream.origin);
      const engine = await pipelineEngine(line, fakes, "SIP");
      const assistant = await createAssistant(line.app.app, line.owner, {
        voice_engine: engine,
        tool_ids: [tool.id],
        transfer_destinations: [{ label: "Billing", phone_number: billing, when_to_use: "Questions about a bill" }],
      });
      const { numberId } = await addSipNumber(line.app, line.owner, NUMBER, { inbound_addresses: ["127.0.0.0/8"] }, assistant.id);

      // A line per 2.5 s of the caller's audio: after the greeting, 2.5 s into the answer, then once more.
      fakes.deepgram.script = { userSays: ["Where is my order 42?", "Wait, stop.", "Put me through to billing."], speechMs: 2500, finalAfterMs: 300 };
      fakes.chat.script = {
        replies: [
          { toolCalls: [{ name: "Lookup_Order", arguments: { order_id: "42" } }] },
          ANSWER.join(" "),
          "Sure, go ahead.",
          { say: "Putting you through.", toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing", summary: "A question about a bill." } }] },
        ],
      };
      caller.command("dial", `sip:${NUMBER}@127.0.0.1:${port}`);
      await caller.event("CALL_ESTABLISHED");

      // The first message, voiced in the phone's own format; the caller's RTP reaches the transcriber as µ-law.
      await until("the greeting voiced", async () => fakes.voice.requests[0], Boolean);
      expect(fakes.voice.requests[0]).toMatchObject({ text: GREETING, outputFormat: "ulaw_8000" });
      expect(fakes.deepgram.connections.at(-1)!.query).toMatchObject({ encoding: "mulaw", sample_rate: "8000" });

      // The question runs the tool; its output goes back to the model.
      await until("the tool's output sent to the model", async () => fakes.chat.requests.length >= 2, Boolean, 15_000);
      expect(fakes.chat.requests[0]!.messages.at(-1)).toEqual({ role: "user", content: "Where is my order 42?" });
      expect(upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);

      // The interruption reaches the model with only what the caller heard of the answer.
      await until("the interruption sent to the model", async () => fakes.chat.requests.length >= 3, Boolean, 15_000);
      const remembered = fakes.chat.requests[2]!.messages.at(-2)!;
      expect(remembered.role).toBe("assistant");
      expect(remembered.content!.length).toBeLessThan(ANSWER.join(" ").length);

      // The person's phone rings through baresip's own call (the REFER), answers, and our leg ends.
      await person.event("CALL_ESTABLISHED", 30_000);
      await caller.event("CALL_CLOSED", 15_000);
      const row = await closedSipRecord(line.app, numberId);
      expect(row).toMatchObject({ carrier: "sip", assistantId: assistant.id, endedReason: HANDOFF_TEXTS.transferredTo("Billing") });

      // What baresip heard from us (the voice's speech is a 440 Hz tone): the greeting, then the
      // answer cut short, and everything after it together still shorter than the whole answer.
      const heard = (await caller.stop())!;
      const heardMs = heardSpeechMs(heard);
      expect(heardMs).toBeGreaterThanOrEqual(words(GREETING) * MS_PER_WORD - 300);
      expect(heardMs).toBeLessThan((words(GREETING) + words(ANSWER.join(" "))) * MS_PER_WORD);

      // The record: the conversation, the tool call, the hand-off, and each service's usage and cost.
      const logs = expectWholeCallRecord(
        row,
        [
          ["user", "Wait, stop."],
          ["user", "Put me through to billing."],
          ["system", HANDOFF_TEXTS.referredTo("Billing", billing)],
        ],
        { interrupted: true, voice: fakes.voice },
      );
      // Deepgram's own count of the audio it received, from its closing Metadata.
      const metadata = fakes.deepgram.connections.at(-1)!.sent.find((m) => m["type"] === "Metadata");
      expect(logs.serviceUsage!.transcriberSeconds).toBe(metadata!["duration"]);
      const page = await line.app.app.inject({ method: "GET", url: `/api/calls/${row.id}`, headers: { cookie: line.owner.cookie } });
      const cost = callRecordSchema.parse(page.json()).provider_cost!;
      expect(cost.lines.map((l) => l.kind)).toEqual(["transcriber", "model", "voice"]);
      for (const l of cost.lines) expect(l.cost).toBeGreaterThan(0);
      expect(cost.total).toBeCloseTo(cost.lines.reduce((sum, l) => sum + l.cost!, 0), 6);
    });
  }, 90_000);
});
