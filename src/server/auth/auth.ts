import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import type { Db } from "../db/client.ts";
import * as schema from "../db/schema.ts";
import { PASSWORD_MIN_LENGTH } from "../../shared/auth.ts";
import { APIError } from "better-auth/api";
import type { SignupPolicy } from "../../shared/team.ts";
import { TEAM_MESSAGES } from "../../shared/team.ts";
import type { TeamService } from "../modules/team/team.service.ts";
import type { Mailer } from "./mailer.ts";
import { revokeResetTokens } from "./reset-tokens.repo.ts";

export interface AuthOptions {
  db: Db;
  secret: string;
  publicUrl: string;
  /** When present, sign-up sends a confirmation e-mail and login waits for it. */
  mailer?: Mailer;
  /** Whether X-Forwarded-Host/-Proto may name the origin (only behind a trusted proxy). */
  trustProxy?: boolean | string;
  /** Session cookies carry Secure (production over https, see config.ts). */
  secureCookies?: boolean;
  /** Who may sign up, and the team each new user gets (modules/team). */
  signup: SignupPolicy;
  team: Pick<TeamService, "createPersonal" | "maySignUp">;
}

const DAY_S = 24 * 60 * 60;

export function createAuth({ db, secret, publicUrl, mailer, trustProxy = false, secureCookies = false, signup, team }: AuthOptions) {
  return betterAuth({
    basePath: "/api/auth",
    baseURL: publicUrl,
    secret,
    database: drizzleAdapter(db, {
      provider: "pg",
      schema: { user: schema.user, session: schema.session, account: schema.account, verification: schema.verification },
    }),
    // Same-origin requests only: the SPA is served by this server, whatever host or port it is reached on.
    // X-Forwarded-* only count behind a proxy we trust: otherwise any client could name its own origin.
    trustedOrigins: (request) => {
      const forwarded = (name: string) => (trustProxy ? request?.headers.get(name)?.split(",")[0]?.trim() || undefined : undefined);
      const host = forwarded("x-forwarded-host") ?? request?.headers.get("host");
      const proto = forwarded("x-forwarded-proto") ?? new URL(publicUrl).protocol.replace(":", "");
      return host ? [publicUrl, `${proto}://${host}`] : [publicUrl];
    },
    emailAndPassword: {
      enabled: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      // Without e-mail confirmation sign-up signs the new user in (and a duplicate address is
      // refused plainly: with autoSignIn off the library would answer it with a fake success).
      autoSignIn: !mailer,
      requireEmailVerification: Boolean(mailer),
      // Forgot password? (only with SMTP: without it there is nowhere to send the link). The link
      // is /api/auth/reset-password/<token>, which redirects to the SPA's /reset-password?token=….
      sendResetPassword: mailer
        ? async ({ user, url }) => {
            await mailer.send({
              to: user.email,
              subject: "Reset your Switchboard password",
              text: `Hello ${user.name},\n\nSomeone asked to reset the password of your Switchboard account. To choose a new one, open:\n${url}\n\nThe link works for one hour. If it wasn't you, ignore this e-mail: your password stays as it is.\n`,
            });
          }
        : undefined,
      // A reset usually means the old password leaked: sign every device out, and void the
      // other links still in someone's mailbox.
      revokeSessionsOnPasswordReset: true,
      onPasswordReset: async ({ user }) => revokeResetTokens(db, user.id),
    },
    // A password change (Settings, or the library's own endpoint) voids outstanding reset links
    // too. The credential account row is only ever updated to set its password.
    databaseHooks: {
      // SIGNUP decides who may create an account; each new user owns a team of their own (unless invited).
      user: {
        create: {
          before: async (user) => {
            if (!(await team.maySignUp(signup, user.email))) {
              throw new APIError("FORBIDDEN", { message: signup.mode === "domain" ? TEAM_MESSAGES.signupDomain : TEAM_MESSAGES.signupClosed });
            }
          },
          after: async (user) => team.createPersonal(user),
        },
      },
      account: {
        update: {
          after: async (account) => {
            if (account.password) await revokeResetTokens(db, account.userId);
          },
        },
      },
    },
    emailVerification: mailer
      ? {
          sendOnSignUp: true,
          autoSignInAfterVerification: false,
          sendVerificationEmail: async ({ user, url }) => {
            await mailer.send({
              to: user.email,
              subject: "Confirm your Switchboard account",
              text: `Hello ${user.name},\n\nConfirm your e-mail address to start using Switchboard:\n${url}\n`,
            });
          },
        }
      : undefined,
    // Sliding expiry: a session lives 7 days and is extended at most once a day while it is used.
    // The organisation the session works in (modules/team); written by the server only.
    session: {
      expiresIn: 7 * DAY_S,
      updateAge: DAY_S,
      additionalFields: { activeOrganizationId: { type: "string", required: false, input: false } },
    },
    // Failed-login throttling is ours (login-throttle.ts): the library's limiter counts every
    // request, which would lock out a busy but honest user.
    rateLimit: { enabled: false },
    // Explicit rather than the library's guess from the URL: see config.ts for when it is on.
    // disableOriginCheck: the library skips its CSRF origin check when it detects a test run;
    // explicit false keeps tests checking what production does.
    advanced: { cookiePrefix: "switchboard", useSecureCookies: secureCookies, disableOriginCheck: false },
  });
}

export type Auth = ReturnType<typeof createAuth>;
