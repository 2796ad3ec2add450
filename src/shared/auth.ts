import { z } from "zod";

export const PASSWORD_MIN_LENGTH = 6;

export const loginSchema = z.object({
  email: z.email("Please enter a valid email address."),
  password: z.string().min(PASSWORD_MIN_LENGTH, "Password must be at least 6 characters."),
});
export type LoginInput = z.infer<typeof loginSchema>;

export const signupSchema = z
  .object({
    firstName: z.string().trim().min(1, "First name is required"),
    lastName: z.string().trim().min(1, "Last name is required"),
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
