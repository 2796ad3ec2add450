import type { FastifyInstance, FastifySchema } from "fastify";
import { z } from "zod";
import { pageQuerySchema, type Page, type PageQuery } from "../../shared/pages.ts";

/** What an organisation-owned resource's service offers the five routes below. */
export interface ResourceService<Row, Created, Input, Update> {
  /** A page of the organisation's rows, newest first, the keyset applied in SQL (db/keyset.ts). */
  page(organizationId: string, query: PageQuery): Promise<Page<Row>>;
  get(organizationId: string, id: string): Promise<Row>;
  create(organizationId: string, input: Input): Promise<Created>;
  update(organizationId: string, id: string, input: Update): Promise<Row>;
  remove(organizationId: string, id: string): Promise<void>;
}

type Operation = "list" | "get" | "create" | "update" | "remove";
/** Where a route names its operation itself rather than by openapi-operations.ts's rule. */
export type ResourceDocs = { tags?: string[] } & Partial<Record<Operation, { operationId: string; summary: string }>>;

const params = z.object({ id: z.string() });

/**
 * The five routes every organisation-owned resource has, in one place: `GET path` (list, a page newest first),
 * `GET path/:id`, `POST path` (201), `PATCH path/:id`, `DELETE path/:id` (204). The service scopes
 * each to the organisation and answers 404 for another's id; roles are checked by the route table.
 */
export function resourceRoutes<Row extends z.ZodType, Input extends z.ZodType, Update extends z.ZodType, Created extends z.ZodType = Row>(
  plugin: FastifyInstance,
  path: string,
  schemas: { row: Row; page: z.ZodType; input: Input; update: Update; created?: Created },
  service: ResourceService<z.infer<Row>, z.infer<Created>, z.infer<Input>, z.infer<Update>>,
  docs: ResourceDocs = {},
): void {
  // Plain Fastify typing here: the zod type provider cannot follow generic schemas, so the bodies
  // are cast — the schemas still validate every request and serialise every answer.
  const app = plugin;
  const doc = (op: Operation, schema: FastifySchema): { schema: FastifySchema } => ({ schema: { ...(docs.tags ? { tags: docs.tags } : {}), ...docs[op], ...schema } });
  const org = (req: { actor: { organizationId: string } }) => req.actor.organizationId;
  const id = (req: { params: unknown }) => (req.params as { id: string }).id;

  // Newest first, in the API's one page shape (src/shared/pages.ts).
  app.get(path, doc("list", { querystring: pageQuerySchema, response: { 200: schemas.page } }), async (req) => service.page(org(req), req.query as PageQuery));

  app.get(`${path}/:id`, doc("get", { params, response: { 200: schemas.row } }), async (req) => service.get(org(req), id(req)));

  app.post(path, doc("create", { body: schemas.input, response: { 201: schemas.created ?? schemas.row } }), async (req, reply) => {
    reply.status(201);
    return service.create(org(req), req.body as z.infer<Input>);
  });

  app.patch(`${path}/:id`, doc("update", { params, body: schemas.update, response: { 200: schemas.row } }), async (req) =>
    service.update(org(req), id(req), req.body as z.infer<Update>),
  );

  app.delete(`${path}/:id`, doc("remove", { params }), async (req, reply) => {
    await service.remove(org(req), id(req));
    return reply.status(204).send();
  });
}
