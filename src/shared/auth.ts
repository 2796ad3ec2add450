import { z } from "zod";
import { NOT_BLANK } from "./wire-formats.js";

export const PASSWORD_MIN_LENGTH = 6;

export const loginSchema = z.object({
  email: z.email("Please enter a valid email address."),
  password: z.string().min(PASSWORD_MIN_LENGTH, "Password must be at least 6 characters."),
});
export type LoginInput = z.infer<typeof loginSchema>;

export const signupSchema = z
  .object({
    firstName: z.string().trim().min(1, { error: "First name is required", abort: true }).regex(NOT_BLANK, "First name is required"),
    lastName: z.string().trim().min(1, { error: "Last name is required", abort: true }).regex(NOT_BLANK, "Last name is required"),
    email: z.email("Please enter a valid email address"),
    password: z.string().min(PASSWORD_MIN_LENGTH, "Password must be at least 6 characters"),
    confirmPassword: z.string(),
  })
  .refine((v) => v.password === v.confirmPassword, { message: "Passwords don't match", path: ["confirmPassword"] });
export type SignupInput = z.infer<typeof signupSchema>;

export const fullName = (v: Pick<SignupInput, "firstName" | "lastName">) => `${v.firstName.trim()} ${v.lastName.trim()}`;

export interface SessionUser {
  id: string;
  name: string;
  email: string;
}

/** The close a live socket (board, watched call, test call) gets once its sign-in session has ended. */
export const SESSION_ENDED_CLOSE = { code: 4401, reason: "Your session has ended. Please sign in again." } as const;

/**
 * Whether a live socket's close means its sign-in session ended. The reason counts too: a test
 * call's single-use session id ("Call session expired") closes with the same code, and that one
 * is no reason to sign in again.
 */
export function isSessionEndedClose(code: number, reason: string): boolean {
  return code === SESSION_ENDED_CLOSE.code && reason === SESSION_ENDED_CLOSE.reason;
}

/** What the login page shows after an app page was left because the session ended (router state). */
export interface LoginNotice {
  notice: string;
}
