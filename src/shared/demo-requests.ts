import { z } from "zod";
import { pageOf } from "./pages.js";
import { NOT_BLANK } from "./wire-formats.js";

/** Spec §3 "Demo countries", in the order the form lists them. */
export const DEMO_COUNTRIES = [
  "United States",
  "Canada",
  "United Kingdom",
  "Australia",
  "Germany",
  "France",
  "Spain",
  "Italy",
  "Japan",
  "China",
  "India",
  "Brazil",
  "Mexico",
  "Singapore",
  "Other",
] as const;
export type DemoCountry = (typeof DEMO_COUNTRIES)[number];

/** Spec §3 "Call volume options": the value is stored, the label is shown. */
export const CALL_VOLUME_OPTIONS = [
  { value: "0-1000", label: "0 - 1,000 calls per year" },
  { value: "1000-10000", label: "1,000 - 10,000" },
  { value: "10000-50000", label: "10,000 - 50,000" },
  { value: "50000-100000", label: "50,000 - 100,000" },
  { value: "100000-500000", label: "100,000 - 500,000" },
  { value: "500000+", label: "500,000+" },
] as const;
export type CallVolume = (typeof CALL_VOLUME_OPTIONS)[number]["value"];
export const CALL_VOLUME_VALUES = CALL_VOLUME_OPTIONS.map((o) => o.value) as [CallVolume, ...CallVolume[]];

export const DEMO_TEXT_MAX = 200;
export const DEMO_COMMENTS_MAX = 5000;

const PHONE_INVALID = "Please enter a valid phone number";

const required = (message: string, max = DEMO_TEXT_MAX) =>
  z.string(message).trim().min(1, { error: message, abort: true }).regex(NOT_BLANK, message).max(max, `Must be at most ${max} characters`);

// Each rule is written once and shared by the form's shape (spec §3 "Demo form") and the
// wire's shape (the demo_requests fields), so the browser and the server can never disagree.
const rules = {
  firstName: required("First name is required"),
  lastName: required("Last name is required"),
  company: required("Company name is required"),
  // Trimmed before the format check, so a pasted trailing space is not an error.
  email: z.string("Please enter a valid work email").trim().max(254, "Please enter a valid work email").pipe(z.email("Please enter a valid work email")),
  role: required("Role is required"),
  // Digits with the usual separators and an optional leading +: 7 to 15 digits (E.164's most).
  phoneNumber: required("Phone number is required", 40).regex(/^\+?[\d\s().-]+$/, PHONE_INVALID).refine((v) => {
    const digits = v.replace(/\D/g, "").length;
    return digits >= 7 && digits <= 15;
  }, PHONE_INVALID),
  location: z.enum(DEMO_COUNTRIES, "Location is required"),
  callVolume: z.enum(CALL_VOLUME_VALUES, "Call volume is required"),
  comments: z.string().trim().max(DEMO_COMMENTS_MAX, `Comments must be at most ${DEMO_COMMENTS_MAX} characters`),
};

/** The Request a demo form (spec §5 "Demo"). Selects start empty, which reads as "required". */
export const demoFormSchema = z.object({
  ...rules,
  // An unchosen Select holds "": the form's value is a plain string until it passes the list.
  location: z.string().pipe(rules.location),
  callVolume: z.string().pipe(rules.callVolume),
});
export type DemoFormValues = z.input<typeof demoFormSchema>;
export type DemoFormOutput = z.output<typeof demoFormSchema>;

/** POST /api/demo-requests body: the demo_requests field names of spec §3. */
export const demoRequestSchema = z.object({
  first_name: rules.firstName,
  last_name: rules.lastName,
  company: rules.company,
  work_email: rules.email,
  role: rules.role,
  phone_number: rules.phoneNumber,
  location: rules.location,
  yearly_call_volume: rules.callVolume,
  comments: rules.comments.nullish(),
});
export type DemoRequestInput = z.infer<typeof demoRequestSchema>;

export interface DemoRequestCreated {
  id: string;
  created_at: string;
}

/** The validated form, in the wire's shape (comments left blank become null, as stored). */
export function toDemoRequest(values: DemoFormOutput): DemoRequestInput {
  return {
    first_name: values.firstName,
    last_name: values.lastName,
    company: values.company,
    work_email: values.email,
    role: values.role,
    phone_number: values.phoneNumber,
    location: values.location,
    yearly_call_volume: values.callVolume,
    comments: values.comments || null,
  };
}

/** GET /api/demo-requests (the instance owner only): the requests received, newest first, as stored. */
export const demoRequestListItemSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company: z.string(),
  work_email: z.string(),
  role: z.string(),
  phone_number: z.string(),
  location: z.enum(DEMO_COUNTRIES),
  yearly_call_volume: z.enum(CALL_VOLUME_VALUES),
  comments: z.string().nullable(),
});
export type DemoRequestListItem = z.infer<typeof demoRequestListItemSchema>;
export const demoRequestListItemPageSchema = pageOf(demoRequestListItemSchema);

export const DEMO_SUBMITTED = { title: "Demo request submitted", description: "Thank you for your interest. Our team will contact you soon." } as const;
export const DEMO_ERROR_TITLE = "Error";
export const DEMO_ERROR_FALLBACK = "An error occurred. Please try again.";
