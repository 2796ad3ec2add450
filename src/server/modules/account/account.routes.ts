import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { isAPIError } from "better-auth/api";
import { accountOptionsSchema, accountSummarySchema, changePasswordSchema, deleteAccountSchema, updateNameSchema, type AccountOptions } from "../../../shared/account.ts";
import type { SessionUser } from "../../../shared/auth.ts";
import { fromNodeHeaders } from "better-auth/node";
import { AppError } from "../../errors.ts";
import { invalidPassword, type AccountService } from "./account.service.ts";

/** The library refuses a wrong current password as INVALID_PASSWORD; anything else stays a server error. */
function libraryError(err: unknown): never {
  if (isAPIError(err) && (err.body as { code?: string } | undefined)?.code === "INVALID_PASSWORD") throw invalidPassword();
  if (isAPIError(err) && err.statusCode < 500) throw new AppError(err.statusCode, "bad_request", err.message);
  throw err;
}

function forwardCookies(reply: FastifyReply, headers: Headers) {
  const cookies = headers.getSetCookie();
  if (cookies.length) reply.header("set-cookie", cookies);
}

/** Public: GET /api/account/options — what the login and sign-up pages may offer. */
export const accountPublicRoutes: FastifyPluginAsync<{ emailEnabled: boolean; signup: AccountOptions["signup"] }> = async (plugin, { emailEnabled, signup }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  // The mode only: the allowed domains are not for every visitor to read.
  app.get("/api/account/options", { schema: { response: { 200: accountOptionsSchema } } }, async (): Promise<AccountOptions> => ({ email: emailEnabled, signup }));
};

/**
 * The signed-in user's own account (register inside the authenticated scope):
 * - GET    /api/account           what deleting it would remove (counts)
 * - PATCH  /api/account/name      { name } → the user
 * - POST   /api/account/password  { currentPassword, newPassword } → 204; other sessions end
 * - DELETE /api/account           { password } → 204; everything of the user is gone
 */
export const accountRoutes: FastifyPluginAsync<{ service: AccountService }> = async (plugin, { service }) => {
  const app = plugin.withTypeProvider<ZodTypeProvider>();
  const { auth } = app.ctx;

  app.get("/api/account", { schema: { response: { 200: accountSummarySchema } } }, async (req) => service.summary(req.user.id));

  app.patch("/api/account/name", { schema: { body: updateNameSchema } }, async (req, reply): Promise<{ user: SessionUser }> => {
    try {
      const { headers } = await auth.api.updateUser({ body: { name: req.body.name }, headers: fromNodeHeaders(req.headers), returnHeaders: true });
      forwardCookies(reply, headers);
    } catch (err) {
      libraryError(err);
    }
    return { user: { ...req.user, name: req.body.name } };
  });

  app.post("/api/account/password", { schema: { body: changePasswordSchema } }, async (req, reply) => {
    try {
      const { headers } = await auth.api.changePassword({
        body: { currentPassword: req.body.currentPassword, newPassword: req.body.newPassword, revokeOtherSessions: true },
        headers: fromNodeHeaders(req.headers),
        returnHeaders: true,
      });
      // Revoking the other sessions opens a new one for this browser: its cookie must reach it.
      forwardCookies(reply, headers);
    } catch (err) {
      libraryError(err);
    }
    return reply.status(204).send();
  });

  app.delete("/api/account", { schema: { body: deleteAccountSchema } }, async (req, reply) => {
    await service.deleteAccount(req.user.id, req.body.password, req.log);
    return reply.status(204).send();
  });
};
