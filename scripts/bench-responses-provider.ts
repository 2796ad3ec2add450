/**
 * The end of a bench child that serves the fake OpenAI Responses API (on the fake Realtime
 * server's port): say where it listens, wait for the parent's `report`, answer with what the
 * Responses API saw, and stop.
 */
import type { FakeRealtime } from "../tests/fakes/fake-realtime.ts";
import type { FakeResponses } from "../tests/fakes/fake-responses.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

export async function serveUntilReport(realtime: FakeRealtime, responses: FakeResponses, timeoutMs: number): Promise<void> {
  send(process, { type: "listening", baseUrl: realtime.baseUrl, apiKey: realtime.apiKey });
  await nextMessage<{ type: "report" }, "report">(process, "report", timeoutMs);
  send(process, { type: "report", requests: responses.requests.length, accepted: responses.accepted.length, scriptError: responses.scriptError });
  await responses.close();
  await realtime.close();
  process.disconnect();
}
