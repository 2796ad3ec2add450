import { z } from "zod";

/**
 * The auth library's endpoints this product uses, by their canonical path under /api/auth. Every
 * other path — including other spellings of these (`/./sign-in/email`, `%2e`, `x/..`, a trailing
 * slash) — answers 404 before the library sees it, so the throttle and the sign-up rule below
 * can never be stepped around by a path the library would normalise to one of these.
 */
export const AUTH_BASE_PATH = "/api/auth";

const email = z.string({ error: "Email must be text" }).max(254, "Email must be at most 254 characters");
// The library hashes the password; a megabyte of it would be a cheap way to burn our CPU.
const password = z.string({ error: "Password must be text" }).max(128, "Password must be at most 128 characters");
const callbackURL = z.string({ error: "callbackURL must be text" }).max(2048, "callbackURL must be at most 2048 characters").optional();
const name = z
  .string({ error: "Name must be text" })
  .trim()
  .min(1, "Name is required")
  .max(200, "Name must be at most 200 characters");

// Unknown fields are dropped (z.object strips them), so no client can set e.g. `emailVerified`.
const schemas = {
  "/sign-in/email": z.object({ email, password, rememberMe: z.boolean({ error: "rememberMe must be true or false" }).optional(), callbackURL }),
  "/sign-up/email": z.object({ name, email, password, callbackURL, rememberMe: z.boolean({ error: "rememberMe must be true or false" }).optional() }),
  "/update-user": z.object({ name: name.optional(), image: z.string({ error: "Image must be text" }).max(2048).nullish() }),
  "/change-password": z.object({ currentPassword: password, newPassword: password, revokeOtherSessions: z.boolean().optional() }),
  "/send-verification-email": z.object({ email, callbackURL }),
  "/sign-out": z.object({}),
  // Password recovery from /login (only answered when e-mail is set up; see auth.ts).
  "/request-password-reset": z.object({ email, redirectTo: callbackURL }),
  "/reset-password": z.object({ newPassword: password, token: z.string({ error: "Token must be text" }).max(256, "Token must be at most 256 characters") }),
} as const;

/** The e-mailed reset link, /reset-password/<token>: the only endpoint with a segment of its own. */
const RESET_LINK = /^\/reset-password\/[A-Za-z0-9_-]{1,256}$/;

export type AuthEndpoint = "/get-session" | "/verify-email" | "/ok" | "/error" | "/reset-password/:token" | keyof typeof schemas;
const METHODS: Record<AuthEndpoint, "GET" | "POST"> = {
  "/get-session": "GET",
  "/verify-email": "GET",
  "/ok": "GET",
  "/error": "GET",
  "/sign-in/email": "POST",
  "/sign-up/email": "POST",
  "/update-user": "POST",
  "/change-password": "POST",
  "/send-verification-email": "POST",
  "/sign-out": "POST",
  "/request-password-reset": "POST",
  "/reset-password": "POST",
  "/reset-password/:token": "GET",
};

/** The endpoint a canonical pathname names (exact match), or null. */
export function authEndpointOf(method: string, pathname: string): AuthEndpoint | null {
  if (!pathname.startsWith(`${AUTH_BASE_PATH}/`)) return null;
  const path = pathname.slice(AUTH_BASE_PATH.length) as AuthEndpoint;
  if (method === "GET" && RESET_LINK.test(path)) return "/reset-password/:token";
  if (path === "/reset-password/:token") return null;
  return Object.hasOwn(METHODS, path) && METHODS[path] === method ? path : null;
}

/** Checks the body's fields before the library sees it; returns the body to forward or the first problem. */
export function parseAuthBody(endpoint: AuthEndpoint, body: unknown): { ok: true; body: unknown } | { ok: false; message: string } {
  const schema = (schemas as Record<string, z.ZodType | undefined>)[endpoint];
  if (!schema) return { ok: true, body: undefined };
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return { ok: true, body: parsed.data };
  const issue = parsed.error.issues[0];
  // A missing body or a non-object one has no field to name.
  return { ok: false, message: issue && issue.path.length > 0 ? issue.message : "The request body must be a JSON object" };
}
