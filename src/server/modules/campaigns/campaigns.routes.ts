import { Readable, Transform } from "node:stream";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { CAMPAIGN_ACTIONS, CAMPAIGN_TEXTS, campaignContactPageSchema, campaignInputSchema, campaignPageSchema, campaignSchema, contactsImportQuerySchema, contactsImportSchema } from "../../../shared/campaigns.ts";
import { AppError } from "../../errors.ts";
import { csvField } from "../../http/csv-field.ts";
import { downloadBody, sendCsv } from "../../http/download-body.ts";
import type { CampaignsService } from "./campaigns.service.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";

const params = z.object({ id: z.string() });
const actionParams = z.object({ id: z.string(), action: z.enum(CAMPAIGN_ACTIONS, { error: "The action is start, pause, resume or cancel" }) });
/** The CSV export reads the contacts in pages this large (more than a client may ask for: it is ours). */
const EXPORT_PAGE = 1000;
/** A CSV of 100,000 rows with a few columns. */
const CSV_BODY_LIMIT = 32 * 1024 * 1024;
/** A streamed CSV: larger rows are fine, since it is never held whole. */
const CSV_STREAM_LIMIT = 256 * 1024 * 1024;

/** Passes the upload on, failing it (413) past `limit` bytes. */
function capped(limit: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(new AppError(413, "payload_too_large", CAMPAIGN_TEXTS.csvTooLarge(limit / 1024 / 1024)));
      else done(null, chunk);
    },
  });
}


/** /api/campaigns (register inside the authenticated scope). */
export const campaignsRoutes: FastifyPluginAsync<{ service: CampaignsService }> = async (base, { service }) => {
  const app = base.withTypeProvider<ZodTypeProvider>();
  // text/csv bodies reach the handler as the request's stream, read as they arrive.
  app.addContentTypeParser("text/csv", (_req, payload, done) => done(null, payload));
  app.post("/api/campaigns", { bodyLimit: CSV_BODY_LIMIT, schema: { body: campaignInputSchema } }, async (req, reply) => {
    const created = await service.create(req.actor.organizationId, req.body);
    reply.status(201);
    return created;
  });
  app.put("/api/campaigns/:id/contacts", { schema: { params, querystring: contactsImportQuerySchema, response: { 200: contactsImportSchema } } }, async (req) => {
    if (!(req.body instanceof Readable)) throw new AppError(415, "unsupported_media_type", "Send the contacts as text/csv");
    const upload = req.body.pipe(capped(CSV_STREAM_LIMIT));
    req.body.once("error", (err) => upload.destroy(err));
    return service.replaceContacts(req.actor.organizationId, req.params.id, upload, req.query.default_country ?? null);
  });
  app.get("/api/campaigns", { schema: { querystring: pageQuerySchema, response: { 200: campaignPageSchema } } }, async (req) =>
    service.page(req.actor.organizationId, req.query),
  );
  app.get("/api/campaigns/:id", { schema: { params, response: { 200: campaignSchema } } }, async (req) => service.get(req.actor.organizationId, req.params.id));
  app.post("/api/campaigns/:id/:action", { schema: { params: actionParams, response: { 200: campaignSchema } } }, async (req) => service.act(req.actor.organizationId, req.params.id, req.params.action));
  app.get("/api/campaigns/:id/contacts", { schema: { params, querystring: pageQuerySchema, response: { 200: campaignContactPageSchema } } }, async (req) =>
    service.contacts(req.actor.organizationId, req.params.id, req.query),
  );
  app.get("/api/campaigns/:id/contacts.csv", { schema: { params } }, async (req, reply) => {
    const first = await service.contacts(req.actor.organizationId, req.params.id, { limit: EXPORT_PAGE });
    const organizationId = req.actor.organizationId;
    const id = req.params.id;
    async function* rows() {
      yield "row,phone,attempts,last_outcome,state,call_id\r\n";
      let page = first;
      for (;;) {
        for (const c of page.data) yield [c.row, c.phone, c.attempts, c.last_outcome, c.state, c.call_id].map((v) => csvField(v === null ? "" : String(v))).join(",") + "\r\n";
        if (page.next_cursor === null) return;
        page = await service.contacts(organizationId, id, { limit: EXPORT_PAGE, cursor: page.next_cursor });
      }
    }
    return sendCsv(reply, `campaign-${id}.csv`, downloadBody(rows(), req.log, "campaign contacts export"));
  });
};
