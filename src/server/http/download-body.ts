import { Readable } from "node:stream";
import type { FastifyBaseLogger, FastifyReply } from "fastify";
import { loggableError } from "./log-redaction.ts";

/**
 * The body of a streamed download (the CSV exports). Its headers are gone with the first byte,
 * so a failure after it cannot become an error answer: the response is cut off (Fastify destroys
 * it, so the client sees an incomplete body rather than a short file that looks whole), and the
 * cause is logged here once, without the failed query's parameters (users' data). Fastify's own
 * line about the cut names only this text.
 */
export function downloadBody(chunks: AsyncIterable<string>, log: FastifyBaseLogger, what: string): Readable {
  async function* guarded(): AsyncGenerator<string> {
    try {
      yield* chunks;
    } catch (err) {
      log.error({ err: loggableError(err) }, `${what} failed midway`);
      throw new Error(`${what} failed midway (logged before this line)`);
    }
  }
  return Readable.from(guarded());
}

/** Sends `body` (a downloadBody) as the CSV file `filename`; never stored by a cache, being the user's data as of now. */
export function sendCsv(reply: FastifyReply, filename: string, body: Readable): FastifyReply {
  return reply
    .header("content-type", "text/csv; charset=utf-8")
    .header("content-disposition", `attachment; filename="${filename}"`)
    .header("cache-control", "no-store")
    .send(body);
}
