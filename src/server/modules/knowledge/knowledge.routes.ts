import multipart from "@fastify/multipart";
import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  documentTextInputSchema,
  documentUrlInputSchema,
  KNOWLEDGE_TEXTS,
  knowledgeBaseInputSchema,
  knowledgeBasePageSchema,
  knowledgeBaseSchema,
  knowledgeBaseUpdateSchema,
  knowledgeDocumentPageSchema,
  knowledgeDocumentSchema,
  knowledgeSearchInputSchema,
  knowledgeSearchResultSchema,
  knowledgeStatusSchema,
  MAX_DOCUMENT_BYTES,
  type DocumentJsonInput,
} from "../../../shared/knowledge.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import { AppError, badRequest } from "../../errors.ts";
import { resourceRoutes } from "../../http/resource-routes.ts";
import type { KnowledgeService, UploadedFile } from "./knowledge.service.ts";

const params = z.object({ id: z.string() });
const docParams = z.object({ id: z.string(), docId: z.string() });

const validationError = (error: z.ZodError) => new AppError(400, "validation_error", error.issues[0]?.message ?? KNOWLEDGE_TEXTS.bodyShape);

/** The one file of a multipart request (field `file`), read whole up to the limit. */
async function readUpload(req: FastifyRequest): Promise<UploadedFile> {
  let part;
  try {
    part = await req.file({ limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1 } });
  } catch (err) {
    throw new AppError(400, "invalid_multipart", `The upload could not be read: ${(err as Error).message}`);
  }
  if (!part || part.fieldname !== "file") throw badRequest(KNOWLEDGE_TEXTS.fileMissing, "file_missing");
  const bytes = await part.toBuffer().catch((err: unknown) => {
    if ((err as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE") throw new AppError(413, "file_too_large", KNOWLEDGE_TEXTS.fileTooLarge);
    throw new AppError(400, "invalid_multipart", `The upload could not be read: ${(err as Error).message}`);
  });
  if (part.file.truncated) throw new AppError(413, "file_too_large", KNOWLEDGE_TEXTS.fileTooLarge);
  return { filename: part.filename || "document", mimetype: part.mimetype || null, bytes };
}

function readJson(body: unknown): DocumentJsonInput {
  if (body && typeof body === "object" && "url" in body) {
    const parsed = documentUrlInputSchema.safeParse(body);
    if (!parsed.success) throw validationError(parsed.error);
    return parsed.data;
  }
  if (body && typeof body === "object" && "text" in body) {
    const parsed = documentTextInputSchema.safeParse(body);
    if (!parsed.success) throw validationError(parsed.error);
    return parsed.data;
  }
  throw badRequest(KNOWLEDGE_TEXTS.bodyShape, "validation_error");
}

/** /api/knowledge-bases: bases, their documents and search (register inside the authenticated scope). */
export const knowledgeRoutes: FastifyPluginAsync<{ service: KnowledgeService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  // Only here: multipart bodies reach no other route.
  await app.register(multipart, { limits: { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 5, parts: 6 } });

  app.get("/api/knowledge-bases/status", { schema: { response: { 200: knowledgeStatusSchema } } }, async (req) => service.status(req.actor.organizationId));

  resourceRoutes(plugin, "/api/knowledge-bases", { row: knowledgeBaseSchema, page: knowledgeBasePageSchema, input: knowledgeBaseInputSchema, update: knowledgeBaseUpdateSchema }, {
    page: (org, query) => service.pageBases(org, query),
    get: (org, id) => service.getBase(org, id),
    create: (org, input) => service.createBase(org, input),
    update: (org, id, input) => service.updateBase(org, id, input),
    remove: (org, id) => service.deleteBase(org, id),
  });

  app.get("/api/knowledge-bases/:id/documents", { schema: { params, querystring: pageQuerySchema, response: { 200: knowledgeDocumentPageSchema } } }, async (req) =>
    service.pageDocuments(req.actor.organizationId, req.params.id, req.query),
  );

  // Multipart (the file in field `file`) or JSON ({url} or {name, text}): the body is checked here, by its kind.
  app.post(
    "/api/knowledge-bases/:id/documents",
    { schema: { params, description: "Upload a file (multipart/form-data, field `file`), or JSON `{url, refresh?}` or `{name, text}`.", response: { 202: knowledgeDocumentSchema } } },
    async (req, reply) => {
      const organizationId = req.actor.organizationId;
      const doc = req.isMultipart() ? await service.upload(organizationId, req.params.id, await readUpload(req)) : await service.addJson(organizationId, req.params.id, readJson(req.body));
      reply.status(202);
      return doc;
    },
  );

  app.put(
    "/api/knowledge-bases/:id/documents/:docId",
    { schema: { params: docParams, description: "Replace an uploaded document with a new file (multipart/form-data, field `file`).", response: { 202: knowledgeDocumentSchema } } },
    async (req, reply) => {
      if (!req.isMultipart()) throw new AppError(415, "unsupported_media_type", KNOWLEDGE_TEXTS.fileMissing);
      const doc = await service.replace(req.actor.organizationId, req.params.id, req.params.docId, await readUpload(req));
      reply.status(202);
      return doc;
    },
  );

  app.post("/api/knowledge-bases/:id/documents/:docId/reprocess", { schema: { params: docParams, response: { 202: knowledgeDocumentSchema } } }, async (req, reply) => {
    reply.status(202);
    return service.reprocess(req.actor.organizationId, req.params.id, req.params.docId);
  });

  app.delete("/api/knowledge-bases/:id/documents/:docId", { schema: { params: docParams } }, async (req, reply) => {
    await service.deleteDocument(req.actor.organizationId, req.params.id, req.params.docId);
    return reply.status(204).send();
  });

  app.post("/api/knowledge-bases/:id/search", { schema: { params, body: knowledgeSearchInputSchema, response: { 200: knowledgeSearchResultSchema } } }, async (req) =>
    service.search(req.actor.organizationId, req.params.id, req.body.query, req.body.limit),
  );
};
