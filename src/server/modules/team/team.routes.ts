import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  acceptInvitationSchema,
  changeRoleSchema,
  createdInvitationSchema,
  currentMembershipSchema,
  invitationPreviewSchema,
  inviteSchema,
  organizationItemPageSchema,
  renameOrganizationSchema,
  teamInvitationPageSchema,
  teamMemberPageSchema,
  type CurrentMembership,
} from "../../../shared/team.ts";
import { pageQuerySchema } from "../../../shared/pages.ts";
import type { TeamService } from "./team.service.ts";

const userParams = z.object({ userId: z.string().max(200) });
const idParams = z.object({ id: z.string().max(200) });

/** /api/organizations, /api/organization and /api/team: the organisation, its members and invitations. */
export const teamRoutes: FastifyPluginAsync<{ service: TeamService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();

  // Where the signed-in person works, and the others they can switch to (a session's choice, permission `account`).
  app.get("/api/organizations", { schema: { querystring: pageQuerySchema, response: { 200: organizationItemPageSchema } } }, async (req) =>
    service.organizations(req.user.id, req.actor.organizationId, req.query),
  );
  app.post("/api/organizations/:id/switch", { schema: { params: idParams } }, async (req, reply) => {
    await service.switchTo(req.user.id, req.sessionId, req.params.id);
    return reply.status(204).send();
  });

  // The actor's own membership (a key's creator's, for a key).
  app.get("/api/organization", { schema: { response: { 200: currentMembershipSchema } } }, async (req): Promise<CurrentMembership> => service.current(req.actor));
  app.patch("/api/organization", { schema: { body: renameOrganizationSchema } }, async (req, reply) => {
    await service.rename(req.actor, req.body.name);
    return reply.status(204).send();
  });

  app.get("/api/team/members", { schema: { querystring: pageQuerySchema, response: { 200: teamMemberPageSchema } } }, async (req) => service.members(req.actor, req.query));
  app.patch("/api/team/members/:userId", { schema: { params: userParams, body: changeRoleSchema } }, async (req, reply) => {
    await service.changeRole(req.actor, req.params.userId, req.body.role);
    return reply.status(204).send();
  });
  app.delete("/api/team/members/:userId", { schema: { params: userParams } }, async (req, reply) => {
    await service.removeMember(req.actor, req.params.userId);
    return reply.status(204).send();
  });

  app.get("/api/team/invitations", { schema: { querystring: pageQuerySchema, response: { 200: teamInvitationPageSchema } } }, async (req) =>
    service.invitations(req.actor, req.query),
  );
  app.post("/api/team/invitations", { schema: { body: inviteSchema, response: { 201: createdInvitationSchema } } }, async (req, reply) => {
    reply.status(201);
    return service.invite(req.actor, req.body);
  });
  app.delete("/api/team/invitations/:id", { schema: { params: idParams } }, async (req, reply) => {
    await service.revokeInvitation(req.actor, req.params.id);
    return reply.status(204).send();
  });
  // A person accepts for themselves (permission `account`, which no key has).
  app.post("/api/team/invitations/accept", { schema: { body: acceptInvitationSchema } }, async (req) =>
    service.accept(req.user, req.sessionId, req.body.token),
  );
};

/** Public: an invitation link's page names the team and the role before the visitor signs in. */
export const invitationPreviewRoutes: FastifyPluginAsync<{ service: TeamService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  app.get("/api/invitations/preview", { schema: { querystring: acceptInvitationSchema, response: { 200: invitationPreviewSchema } } }, async (req) => service.preview(req.query.token));
};
