import type { FastifyPluginAsync, FastifyReply } from "fastify";
import { DIAL_RESULT_PATH, WHISPER_PATH } from "./handoff.ts";
import { AMD_PATH } from "./outbound-calls.ts";
import { MEDIA_PATH, VOICE_PATH, type TelephonyService, type WebhookAnswer } from "./telephony.service.ts";

/**
 * Twilio's side of phone calls (public: Twilio has no session; signatures and stream tokens
 * stand in for it). Register at the root, outside the authenticated /api scope.
 */
export const telephonyRoutes: FastifyPluginAsync<{ service: TelephonyService }> = async (app, { service }) => {
  // Twilio posts its webhooks form-encoded; parsed here only (this plugin's scope).
  app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 64 * 1024 }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const formOf = (body: unknown): Record<string, string> =>
    body && typeof body === "object" ? Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === "string")) : {};

  const answer = (reply: FastifyReply, result: WebhookAnswer) => {
    if (result.status === 403) return reply.status(403).send({ error: { code: "forbidden", message: "Invalid Twilio signature" } });
    if (result.status === 204) return reply.status(204).send();
    return reply.status(200).type("text/xml").send(result.twiml);
  };

  app.post(VOICE_PATH, async (req, reply) =>
    answer(reply, await service.voice(formOf(req.body), req.headers["x-twilio-signature"], req.url)),
  );
  app.post("/telephony/twilio/status", async (req, reply) =>
    answer(reply, await service.status(formOf(req.body), req.headers["x-twilio-signature"], req.url)),
  );
  app.post(AMD_PATH, async (req, reply) =>
    answer(reply, await service.amd(formOf(req.body), req.headers["x-twilio-signature"], req.url)),
  );
  const tokenOf = (query: unknown) => (query && typeof query === "object" ? (query as Record<string, unknown>)["t"] : undefined);
  app.post(WHISPER_PATH, async (req, reply) =>
    answer(reply, await service.whisper(formOf(req.body), req.headers["x-twilio-signature"], req.url, tokenOf(req.query))),
  );
  app.post(DIAL_RESULT_PATH, async (req, reply) =>
    answer(reply, await service.dialResult(formOf(req.body), req.headers["x-twilio-signature"], req.url, tokenOf(req.query))),
  );
  const stopReleasing = await service.releaseStreamsArrivedElsewhere();
  app.addHook("onClose", async () => {
    stopReleasing();
    service.closeEarlyCalls();
  });
  app.get(MEDIA_PATH, { websocket: true }, (socket, req) => {
    service.acceptStream(socket, req.headers["x-twilio-signature"], req.log);
  });
};
