/**
 * Child process of `npm run bench:analysis`: asks for the analyses (POST /api/calls/:id/analysis,
 * `concurrency` at a time) and reports when each was asked for — in its own process, so the HTTP
 * client's work is not counted as the server's (it was, in the server's process, before).
 */
import { nextMessage, send } from "./bench-voice-shared.ts";

export type RequestsMessage =
  | { type: "start"; origin: string; cookie: string; ids: string[]; concurrency: number }
  | { type: "done"; requestedAt: Array<[string, number]>; refused: number };

const { origin, cookie, ids, concurrency } = await nextMessage<RequestsMessage, "start">(process, "start");
const requestedAt: Array<[string, number]> = [];
let refused = 0;
let next = 0;
const worker = async () => {
  while (next < ids.length) {
    const id = ids[next++]!;
    requestedAt.push([id, Date.now()]);
    const res = await fetch(`${origin}/api/calls/${id}/analysis`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
    if (res.status !== 202) refused += 1;
    await res.arrayBuffer();
  }
};
await Promise.all(Array.from({ length: concurrency }, worker));
send(process, { type: "done", requestedAt, refused } satisfies RequestsMessage);
process.disconnect();
