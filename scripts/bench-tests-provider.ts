/**
 * Child process of `npm run bench:tests`: the fake OpenAI Responses API answering every request
 * after `delayMs`, playing the assistant, a caller who never hangs up (so each scenario runs its
 * full turns) and a judge that passes — in its own process, so its work is not the server's.
 */
import { startFakeRealtime } from "../tests/fakes/fake-realtime.ts";
import { startFakeResponses } from "../tests/fakes/fake-responses.ts";
import { testRoles } from "../tests/fakes/fake-test-roles.ts";
import { serveUntilReport } from "./bench-responses-provider.ts";
import { nextMessage } from "./bench-voice-shared.ts";

type Request = { type: "start"; delayMs: number } | { type: "report" };

const { delayMs } = await nextMessage<Request, "start">(process, "start");
const realtime = await startFakeRealtime({ apiKey: "sk-bench-tests" });
const responses = await startFakeResponses({ apiKey: realtime.apiKey, serveOn: realtime, delayMs });
responses.script = testRoles({
  caller: (req) => ({ say: `Question ${req.callerTurn + 1} about my order 42: when does it arrive, and can it come earlier?`, done: false }),
  assistant: (req) => ({ reply: `Order 42 arrives on Friday; I have noted request ${req.callerTurn + 1}. Anything else?` }),
  judge: () => ({ passed: true, reasons: ["The arrival day was given"] }),
});

await serveUntilReport(realtime, responses, 3_600_000);
