import { z } from "zod";
import { PASSWORD_MIN_LENGTH } from "./auth.js";
import { SIGNUP_MODES } from "./team.js";
import { NOT_BLANK } from "./wire-formats.js";
import { withExamples } from "./examples.js";

/**
 * The signed-in user's own account (Settings → Profile, Password, Delete account) and password
 * recovery from /login. The spec has no texts for these; they follow its style.
 */
export const ACCOUNT_MESSAGES = {
  nameRequired: "Name is required",
  nameUpdated: "Name updated",
  passwordTooShort: `Password must be at least ${PASSWORD_MIN_LENGTH} characters`,
  passwordsDontMatch: "Passwords don't match",
  currentPasswordRequired: "Current password is required",
  wrongPassword: "The current password is incorrect",
  passwordChanged: "Password changed",
  passwordChangedDescription: "Your other sessions have been signed out.",
  deleteConfirmRequired: "Enter your password to confirm",
  accountDeleted: "Your account has been deleted",
  lastOwner: (team: string) => `You are the only owner of ${team}: make another member an owner first.`,
  resetEmailSent: "If an account exists for that address, we have sent it a link to reset the password.",
  resetUnavailable: "Password reset by e-mail is not set up on this server. Ask your administrator to reset your password.",
  resetDone: "Your password has been reset. You can now log in.",
  resetLinkInvalid: "This reset link is invalid or has expired. Ask for a new one.",
  signupReady: "Your account has been created. You are signed in.",
  signupConfirmEmail: "Your account has been created. Please check your email to confirm your account.",
} as const;

const newPassword = z.string().min(PASSWORD_MIN_LENGTH, ACCOUNT_MESSAGES.passwordTooShort).max(128, "Password must be at most 128 characters");

export const updateNameSchema = withExamples(
  z.object({
    name: z.string({ error: ACCOUNT_MESSAGES.nameRequired }).trim().min(1, { error: ACCOUNT_MESSAGES.nameRequired, abort: true }).regex(NOT_BLANK, ACCOUNT_MESSAGES.nameRequired).max(200, "Name must be at most 200 characters"),
  }),
  { name: "Ada Lovelace" },
);
export type UpdateNameInput = z.infer<typeof updateNameSchema>;

export const changePasswordSchema = withExamples(
  z.object({
    currentPassword: z.string({ error: ACCOUNT_MESSAGES.currentPasswordRequired }).min(1, ACCOUNT_MESSAGES.currentPasswordRequired),
    newPassword,
  }),
  { currentPassword: "correct-horse-battery", newPassword: "staple-lamp-orbit-42" },
);
export type ChangePasswordInput = z.infer<typeof changePasswordSchema>;

/** The form adds a confirmation field; the API takes only the two passwords. */
export const changePasswordFormSchema = changePasswordSchema
  .extend({ confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, { message: ACCOUNT_MESSAGES.passwordsDontMatch, path: ["confirmPassword"] });
export type ChangePasswordForm = z.infer<typeof changePasswordFormSchema>;

export const deleteAccountSchema = withExamples(
  z.object({
    password: z.string({ error: ACCOUNT_MESSAGES.deleteConfirmRequired }).min(1, ACCOUNT_MESSAGES.deleteConfirmRequired),
  }),
  { password: "correct-horse-battery" },
);
export type DeleteAccountInput = z.infer<typeof deleteAccountSchema>;

/** What deleting an account removes, counted for the confirmation dialog (GET /api/account). */
export const accountSummarySchema = z.object({
  assistants: z.number(),
  tools: z.number(),
  phoneNumbers: z.number(),
  calls: z.number(),
  recordings: z.number(),
});
export type AccountSummary = z.infer<typeof accountSummarySchema>;

/** Public: what this server can do for accounts (GET /api/account/options, no session needed). */
export const accountOptionsSchema = z.object({
  /** SMTP is configured: sign-up confirms by e-mail and "Forgot password?" sends a reset link. */
  email: z.boolean(),
  /** Who may sign up (`SIGNUP`): anyone, invited addresses only, or the listed domains (and invited addresses). */
  signup: z.enum(SIGNUP_MODES),
});
export type AccountOptions = z.infer<typeof accountOptionsSchema>;

export const forgotPasswordSchema = z.object({ email: z.email("Please enter a valid email address.") });
export type ForgotPasswordInput = z.infer<typeof forgotPasswordSchema>;

export const resetPasswordFormSchema = z
  .object({ newPassword, confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, { message: ACCOUNT_MESSAGES.passwordsDontMatch, path: ["confirmPassword"] });
export type ResetPasswordForm = z.infer<typeof resetPasswordFormSchema>;

/** Where the e-mailed reset link lands (better-auth appends `?token=…`, or `?error=INVALID_TOKEN`). */
export const RESET_PASSWORD_PATH = "/reset-password";
