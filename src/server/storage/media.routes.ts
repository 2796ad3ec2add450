import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { isValidKey } from "./keys.ts";
import { parseRange, type RangeResult } from "./range.ts";
import type { UrlSigner, VerifyFailure } from "./signed-url.ts";
import { StorageError, type ObjectInfo, type Storage } from "./storage.ts";

export interface MediaRoutesOptions {
  storage: Storage;
  signer: UrlSigner;
  /** Clock for expiry checks; tests pass a fixed one. */
  now?: () => number;
}

// Stored objects may one day be uploaded by users (e.g. SVG logos); opened directly
// they must not run script on our origin. <img>/<video> embedding ignores this header.
const MEDIA_CSP = "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox";

const REFUSALS: Record<VerifyFailure, string> = {
  unsigned: "This media address is not signed",
  malformed: "This media address is invalid",
  bad_signature: "This media address is invalid",
  // A distinct message lets the client know that fetching a fresh address will help.
  expired: "This media address has expired",
};

type MediaRoute = { Params: { "*": string }; Querystring: Record<string, unknown> };

/**
 * Serves stored objects at `${signer.basePath}/<key>` (GET and HEAD), only for
 * addresses produced by `signer.signUrl` that have not expired, with byte ranges
 * so video players can seek. Register without a prefix: the path comes from the signer.
 */
export const mediaRoutes: FastifyPluginAsync<MediaRoutesOptions> = async (app, { storage, signer, now = Date.now }) => {
  app.route<MediaRoute>({
    method: ["GET", "HEAD"],
    url: `${signer.basePath}/*`,
    handler: async (request, reply) => {
      const key = request.params["*"];
      const at = now();
      const verdict = signer.verifySignedUrl(key, request.query.exp, request.query.sig, at);
      if (!verdict.ok) {
        request.log.debug({ key, reason: verdict.reason }, "media address refused");
        return sendError(reply, 403, "forbidden", REFUSALS[verdict.reason]);
      }

      // signUrl only signs valid keys; checking again keeps a bad key away from the file system.
      const info = isValidKey(key) ? await storage.stat(key) : null;
      if (!info) return sendError(reply, 404, "not_found", "Media not found");

      const range = ifRangeHolds(request.headers["if-range"], info)
        ? parseRange(single(request.headers.range), info.size)
        : ({ kind: "full" } satisfies RangeResult);
      if (range.kind === "unsatisfiable") {
        reply.header("content-range", `bytes */${info.size}`).header("accept-ranges", "bytes");
        return sendError(reply, 416, "range_not_satisfiable", "The requested range is not satisfiable");
      }

      const start = range.kind === "partial" ? range.start : 0;
      const end = range.kind === "partial" ? range.end : info.size - 1;
      const length = end - start + 1;
      // Never cacheable beyond the address's own life, and only by the visitor's browser.
      const maxAgeS = Math.max(0, Math.floor((verdict.expiresAt - at) / 1000));
      reply
        .header("content-type", info.contentType)
        .header("content-length", length)
        .header("accept-ranges", "bytes")
        .header("cache-control", `private, max-age=${maxAgeS}`)
        .header("etag", info.etag)
        .header("last-modified", info.modifiedAt.toUTCString())
        .header("x-content-type-options", "nosniff")
        .header("content-security-policy", MEDIA_CSP);
      if (range.kind === "partial") reply.code(206).header("content-range", `bytes ${start}-${end}/${info.size}`);

      if (request.method === "HEAD" || length === 0) return reply.send();
      try {
        return reply.send(await storage.createReadStream(key, { start, end }));
      } catch (error) {
        // Deleted between stat and open: still a plain 404, not a server error.
        if (error instanceof StorageError && error.code === "not_found") return sendError(reply, 404, "not_found", "Media not found");
        throw error;
      }
    },
  });
};

// If-Range: serve the range only if the client's copy is still current; otherwise the whole object.
function ifRangeHolds(ifRange: string | string[] | undefined, info: ObjectInfo): boolean {
  if (ifRange === undefined) return true;
  if (typeof ifRange !== "string") return false;
  if (ifRange.startsWith('"') || ifRange.startsWith("W/")) return ifRange === info.etag;
  return ifRange === info.modifiedAt.toUTCString();
}

// A repeated Range header is malformed; it is ignored like any other malformed one.
const single = (value: string | string[] | undefined) => (typeof value === "string" ? value : undefined);

function sendError(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .code(status)
    .header("cache-control", "no-store")
    .type("application/json; charset=utf-8")
    .send({ error: { code, message } });
}
