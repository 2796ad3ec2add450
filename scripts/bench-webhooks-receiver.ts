/**
 * Child process of `npm run bench:webhooks`: the webhook receiver (tests/fakes/webhook-receiver.ts)
 * on 127.0.0.1, verifying each request with the `standardwebhooks` package and answering after
 * 50 ms, in its own process so its work is not counted as the server's.
 */
import { startWebhookReceiver } from "../tests/fakes/webhook-receiver.ts";
import { send, summarize } from "./bench-voice-shared.ts";
import type { ReceiverMessage, ReceiverRequest } from "./bench-webhooks-shared.ts";

const receiver = await startWebhookReceiver({ delayMs: 50 });
const callEnded = () => receiver.requests.filter((r) => r.type === "call.ended" && r.status === 200);

process.on("message", (message: ReceiverRequest) => {
  if (message.type === "secret") receiver.secret = message.secret;
  else if (message.type === "count") send(process, { type: "count", callEnded: new Set(callEnded().map((r) => r.id)).size } satisfies ReceiverMessage);
  else if (message.type === "report") {
    const ok = callEnded();
    const first = new Map<string, number>();
    for (const r of ok) if (!first.has(r.id)) first.set(r.id, r.at - Date.parse(String(r.data["end_time"])));
    send(process, {
      type: "report",
      requests: receiver.requests.length,
      received: first.size,
      duplicates: ok.length - first.size,
      unverified: receiver.requests.filter((r) => !r.verified).length,
      endToReceipt: summarize([...first.values()]),
    } satisfies ReceiverMessage);
    void receiver.close().then(() => process.disconnect());
  }
});
send(process, { type: "listening", url: receiver.url } satisfies ReceiverMessage);
