/**
 * SIP trunks: a carrier's trunk or a PBX that sends calls to Switchboard and takes calls from it
 * (Settings → SIP trunks, `/api/sip-trunks`). Passwords are write-only: the API says whether one
 * is set (`has_inbound_password`), never what it is.
 */
import { z } from "zod";
import { pageOf } from "./pages.js";
import { int32 } from "./bounds.js";
import { isIpOrCidr, isSipUri } from "./sip-addresses.js";
import { e164Format, extensionFormat, given, ipOrCidrFormat, NOT_BLANK, oneOfText, rules, sipUriFormat, when } from "./wire-formats.js";
import { EXAMPLE_PHONES, withExamples } from "./examples.js";

// ── Enums and limits ─────────────────────────────────────────────────────────────────────────

export const SIP_TRANSPORTS = ["udp", "tcp", "tls"] as const;
export type SipTransport = (typeof SIP_TRANSPORTS)[number];

/**
 * How a transfer to a person leaves a call on the trunk: `refer` asks the trunk or PBX to call the
 * destination (REFER), this server bridging only when the REFER is refused; `bridge` has this
 * server call the destination through the trunk, brief whoever answers and join the two calls,
 * even when the trunk would take the REFER.
 */
export const SIP_TRANSFER_METHODS = ["refer", "bridge"] as const;
export type SipTransferMethod = (typeof SIP_TRANSFER_METHODS)[number];
/** The trunk form's words for each (Settings → SIP trunks, "Transfers"). */
export const SIP_TRANSFER_METHOD_LABELS: Record<SipTransferMethod, string> = {
  refer: "Hand to the phone system (REFER); bridge here if refused",
  bridge: "Call the person from this server, brief them, bridge",
};

export const SIP_REGISTRATION_STATES = ["unregistered", "registering", "registered", "failed"] as const;
export type SipRegistrationState = (typeof SIP_REGISTRATION_STATES)[number];

/** Who carries a number's calls (and a call's): Twilio, or a SIP trunk of the organisation. */
export const CARRIERS = ["twilio", "sip"] as const;
export type Carrier = (typeof CARRIERS)[number];

export const MAX_SIP_TRUNKS = 50;
export const MAX_INBOUND_ADDRESSES = 50;
export const MAX_SIP_PASSWORD = 128;
export const REGISTER_EXPIRES_DEFAULT = 3600;
export const REGISTER_EXPIRES_MIN = 60;
export const REGISTER_EXPIRES_MAX = 86_400;

// ── User-facing texts ────────────────────────────────────────────────────────────────────────

export const SIP_TRUNK_MESSAGES = {
  nameRequired: "Name is required",
  nameTooLong: "Name must be at most 100 characters",
  invalidAddress: (value: string) => `“${value}” is not an IP address or a CIDR range (such as 203.0.113.10 or 203.0.113.0/24)`,
  tooManyAddresses: `A trunk can list at most ${MAX_INBOUND_ADDRESSES} source addresses`,
  invalidUri: "The outbound address must be a SIP URI such as sip:pbx.example.com or sips:sip.carrier.net:5061",
  invalidUsername: "A username is 1–64 characters without spaces, quotes, “@”, “:” or angle brackets",
  passwordTooLong: `A password must be at most ${MAX_SIP_PASSWORD} characters`,
  passwordRequired: "A password is required",
  inboundPasswordWithoutUser: "Set an inbound username with the inbound password",
  inboundUserWithoutPassword: "Set an inbound password with the inbound username",
  outboundPasswordWithoutUser: "Set an outbound username with the outbound password",
  registerNeedsUri: "Registration needs the outbound address of the registrar",
  registerNeedsCredentials: "Registration needs the outbound username and password",
  invalidExpires: `Registration expiry must be a whole number of seconds from ${REGISTER_EXPIRES_MIN} to ${REGISTER_EXPIRES_MAX}`,
  invalidCallerId: "Caller ID must be an E.164 number such as +14155550100",
  invalidPrefix: "A dial prefix is up to 10 digits, * or #",
  invalidTransport: "Transport must be UDP, TCP or TLS",
  invalidTransferMethod: "Transfer method must be refer or bridge",
  tooMany: `You can have at most ${MAX_SIP_TRUNKS} SIP trunks.`,
  inUse: (numbers: string[]) => `This trunk is used by ${numbers.join(", ")}. Delete those numbers or move them to another trunk first.`,
  created: "SIP trunk added",
  updated: "SIP trunk saved",
  deleted: "SIP trunk deleted",
  passwordKept: "Leave empty to keep the saved password",
  passwordsNotShown: "Passwords are stored encrypted and never shown again.",
  listenerOff: "This server is not listening for SIP: calls from trunks cannot reach it yet.",
  unreadableSecret: "This trunk's password was saved under another APP_SECRET. Enter it again.",
} as const;

// ── Fields ───────────────────────────────────────────────────────────────────────────────────

const name = z
  .string({ error: SIP_TRUNK_MESSAGES.nameRequired })
  .trim()
  .min(1, { error: SIP_TRUNK_MESSAGES.nameRequired, abort: true })
  .regex(NOT_BLANK, SIP_TRUNK_MESSAGES.nameRequired)
  .max(100, SIP_TRUNK_MESSAGES.nameTooLong);

const address = z
  .string({ error: (i) => SIP_TRUNK_MESSAGES.invalidAddress(String(i.input)) })
  .trim()
  .max(64, { error: (i) => SIP_TRUNK_MESSAGES.invalidAddress(String(i.input)) })
  .refine(isIpOrCidr, { error: (i) => SIP_TRUNK_MESSAGES.invalidAddress(String(i.input)) })
  .transform((a) => a.toLowerCase())
  .meta(ipOrCidrFormat);

const addresses = z
  .array(address, { error: SIP_TRUNK_MESSAGES.invalidAddress("") })
  .max(MAX_INBOUND_ADDRESSES, SIP_TRUNK_MESSAGES.tooManyAddresses)
  .transform((list) => [...new Set(list)]);

/** Missing, null or blank: none. */
const blankToNull = (v: unknown) => (typeof v === "string" && v.trim() === "" ? null : v);

const username = z.preprocess(
  blankToNull,
  z
    .string({ error: SIP_TRUNK_MESSAGES.invalidUsername })
    .trim()
    .regex(/^[^\s"@:<>]{1,64}$/, SIP_TRUNK_MESSAGES.invalidUsername)
    .nullish(),
);

/** A password: absent keeps the saved one (on a change), null or "" removes it. Never trimmed. */
const password = z.preprocess(
  (v) => (v === "" ? null : v),
  z.string({ error: SIP_TRUNK_MESSAGES.passwordRequired }).max(MAX_SIP_PASSWORD, SIP_TRUNK_MESSAGES.passwordTooLong).nullish(),
);

const uri = z.preprocess(
  blankToNull,
  z.string({ error: SIP_TRUNK_MESSAGES.invalidUri }).trim().max(512, SIP_TRUNK_MESSAGES.invalidUri).refine(isSipUri, SIP_TRUNK_MESSAGES.invalidUri).meta(sipUriFormat).nullish(),
);

export const E164 = /^\+[1-9]\d{6,14}$/;
const callerId = z.preprocess(
  (v) => (typeof v === "string" ? v.replace(/[\s().-]/g, "") || null : v),
  z.string({ error: SIP_TRUNK_MESSAGES.invalidCallerId }).regex(E164, SIP_TRUNK_MESSAGES.invalidCallerId).nullish(),
);

const prefix = z.preprocess(blankToNull, z.string({ error: SIP_TRUNK_MESSAGES.invalidPrefix }).trim().regex(/^[0-9*#]{1,10}$/, SIP_TRUNK_MESSAGES.invalidPrefix).nullish());

const expires = int32(SIP_TRUNK_MESSAGES.invalidExpires, REGISTER_EXPIRES_MIN).max(REGISTER_EXPIRES_MAX, SIP_TRUNK_MESSAGES.invalidExpires);

const transport = z.enum(SIP_TRANSPORTS, { error: SIP_TRUNK_MESSAGES.invalidTransport });

const transferMethod = z.enum(SIP_TRANSFER_METHODS, { error: SIP_TRUNK_MESSAGES.invalidTransferMethod });

const fields = {
  name,
  inbound_addresses: addresses,
  inbound_username: username,
  inbound_password: password,
  outbound_uri: uri,
  outbound_username: username,
  outbound_password: password,
  register: z.boolean({ error: "register must be true or false" }),
  register_expires: expires,
  caller_id: callerId,
  prefix,
  transport,
  transfer_method: transferMethod,
};

/**
 * Body of POST /api/sip-trunks. Whether the parts fit together (a username with its password,
 * registration with somewhere to register) is checked by the server on the saved values too,
 * so a change of one field is judged with the others.
 */
export const sipTrunkInputSchema = withExamples(
  z.object({
    ...fields,
    inbound_addresses: addresses.default([]),
    register: fields.register.default(false),
    register_expires: expires.default(REGISTER_EXPIRES_DEFAULT),
    transport: transport.default("udp"),
    transfer_method: transferMethod.default("refer"),
  }).meta(
    // sipTrunkProblem's rules, for a new trunk (a change is checked against what is saved).
    rules(
      when(given("inbound_password", "password"), given("inbound_username")),
      when(given("inbound_username"), given("inbound_password", "password")),
      when(given("outbound_password", "password"), given("outbound_username")),
      when({ required: ["register"], properties: { register: { const: true } } }, rules(given("outbound_uri"), given("outbound_username"), given("outbound_password", "password"))),
    ),
  ),
  {
    name: "Office PBX",
    inbound_addresses: ["203.0.113.0/24"],
    outbound_uri: "sip:pbx.example.com",
    outbound_username: "switchboard",
    outbound_password: "s3cret-trunk-pass",
    caller_id: EXAMPLE_PHONES.clinic,
    transport: "udp",
    transfer_method: "refer",
  },
);
export type SipTrunkInput = z.infer<typeof sipTrunkInputSchema>;

/** Body of PATCH /api/sip-trunks/:id: what is sent changes; a password left out stays as saved. */
export const sipTrunkUpdateSchema = withExamples(
  z.object(fields).partial(),
  { inbound_addresses: ["203.0.113.0/24", "198.51.100.7"], transport: "tcp" },
);
export type SipTrunkUpdate = z.infer<typeof sipTrunkUpdateSchema>;

/** The values a trunk ends up with, whatever was sent: checked as a whole (server and form). */
export interface SipTrunkShape {
  inbound_username: string | null;
  has_inbound_password: boolean;
  outbound_uri: string | null;
  outbound_username: string | null;
  has_outbound_password: boolean;
  register: boolean;
}

/** The first thing about a trunk's settings that does not fit together, in the user's words, with its field. */
export function sipTrunkProblem(t: SipTrunkShape): { field: keyof SipTrunkInput; message: string } | null {
  if (t.has_inbound_password && !t.inbound_username) return { field: "inbound_username", message: SIP_TRUNK_MESSAGES.inboundPasswordWithoutUser };
  if (t.inbound_username && !t.has_inbound_password) return { field: "inbound_password", message: SIP_TRUNK_MESSAGES.inboundUserWithoutPassword };
  if (t.has_outbound_password && !t.outbound_username) return { field: "outbound_username", message: SIP_TRUNK_MESSAGES.outboundPasswordWithoutUser };
  if (t.register && !t.outbound_uri) return { field: "outbound_uri", message: SIP_TRUNK_MESSAGES.registerNeedsUri };
  if (t.register && !(t.outbound_username && t.has_outbound_password)) return { field: "outbound_username", message: SIP_TRUNK_MESSAGES.registerNeedsCredentials };
  return null;
}

// ── As the API returns it ────────────────────────────────────────────────────────────────────

export const sipTrunkSchema = z.object({
  id: z.string(),
  name: z.string(),
  inbound_addresses: z.array(z.string()),
  inbound_username: z.string().nullable(),
  has_inbound_password: z.boolean(),
  outbound_uri: z.string().nullable(),
  outbound_username: z.string().nullable(),
  has_outbound_password: z.boolean(),
  register: z.boolean(),
  register_expires: z.number(),
  caller_id: z.string().nullable(),
  prefix: z.string().nullable(),
  transport: z.enum(SIP_TRANSPORTS),
  transfer_method: z.enum(SIP_TRANSFER_METHODS),
  /** What the SIP runtime last saw of the trunk (ISO times; null: never). */
  last_options_at: z.string().nullable(),
  registration_state: z.enum(SIP_REGISTRATION_STATES),
  /** When that state was last reported (registered: the registrar's last 200). */
  registration_state_at: z.string().nullable(),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  /** The SIP numbers on the trunk. */
  numbers: z.array(z.object({ id: z.string(), phone_number: z.string() })),
  created_at: z.string(),
  updated_at: z.string(),
});
/** GET list: a page of these (src/shared/pages.ts). */
export const sipTrunkPageSchema = pageOf(sipTrunkSchema);
export type SipTrunk = z.infer<typeof sipTrunkSchema>;

/** GET /api/sip-trunks/listener: where this server takes SIP, for the address a trunk points at. */
export const sipListenerSchema = z.object({
  /** Whether this server is configured to listen for SIP. */
  enabled: z.boolean(),
  public_address: z.string(),
  port: z.number(),
  /** SIP over TLS's port (SIP_TLS_PORT), or null when the server has no certificate for it. */
  tls_port: z.number().nullable(),
  transports: z.array(z.enum(SIP_TRANSPORTS)),
});
export type SipListener = z.infer<typeof sipListenerSchema>;

/** The port a trunk using `transport` sends to: TLS has its own (5061 by convention). */
export const listenerPortFor = (listener: Pick<SipListener, "port" | "tls_port">, transport: SipTransport) => (transport === "tls" ? (listener.tls_port ?? 5061) : listener.port);

/** The address a trunk sends a number's calls to: `sip:<number>@<address>:<port>;transport=udp`. */
export function sipAddressFor(number: string, listener: Pick<SipListener, "public_address" | "port" | "tls_port">, transport: SipTransport = "udp"): string {
  const host = listener.public_address.includes(":") ? `[${listener.public_address}]` : listener.public_address;
  return `${transport === "tls" ? "sips" : "sip"}:${number}@${host}:${listenerPortFor(listener, transport)};transport=${transport}`;
}

/** What placing a call from a SIP number may be refused with. */
export const SIP_CARRIER_MESSAGES = {
  unavailable: "SIP calls are not available on this server",
  noOutboundRoute: "This number's SIP trunk has no outbound address: add one to the trunk to call from it.",
  nothingToBuy: "SIP numbers are added on a SIP trunk, not bought.",
  full: "This server is carrying as many calls as it can (MAX_CALLS). Try again when one ends.",
  tlsOutbound: "This server places SIP calls over TLS only once it has a certificate (SIP_TLS_CERT and SIP_TLS_KEY): set them, or the trunk's transport to UDP or TCP.",
  unreachable: (uri: string) => `The SIP trunk's outbound address ${uri} cannot be reached.`,
} as const;

/** Why a trunk's REGISTER failed, as its card and the API's `last_error` say. */
export const SIP_REGISTRATION_ERRORS = {
  refused: (status: number, reason: string) => `The registrar refused the registration (SIP ${status}${reason ? ` ${reason}` : ""})`,
  credentials: (status: number) => `The registrar did not accept the outbound username and password (SIP ${status})`,
  unsupportedChallenge: "The registrar asks for an authentication this server cannot answer (only MD5 and SHA-256 digest)",
  timeout: "The registrar did not answer",
  unreachable: (uri: string) => `The registrar ${uri} cannot be reached`,
  untrusted: (uri: string, detail: string) => `The registrar ${uri} shows a TLS certificate this server does not trust (${detail}): set SIP_TLS_CA to its certificate or CA`,
  tls: "This server registers over TLS only once it has a certificate (SIP_TLS_CERT and SIP_TLS_KEY): set them, or the trunk's transport to UDP or TCP.",
  stopped: "SIP is not listening on this server",
} as const;

/** Why a call placed over a SIP trunk never reached the assistant, after "Failed: " (shared/outbound.ts). */
export const SIP_OUTBOUND_FAILURES = {
  rejected: (status: number | undefined) => `the call was rejected${status ? ` (SIP ${status})` : ""}`,
  unreachable: (status: number | undefined) => `the number could not be reached${status ? ` (SIP ${status})` : ""}`,
  assistantUnavailable: "the assistant could not take the call",
} as const;

// ── SIP numbers ──────────────────────────────────────────────────────────────────────────────

export const SIP_NUMBER_MESSAGES = {
  invalidNumber: "Enter an E.164 number such as +14155550100, or an extension of 2–15 digits",
  trunkRequired: "Choose a SIP trunk",
  unknownTrunk: "The SIP trunk does not exist or is not one of yours.",
  alreadyOnTrunk: (number: string, trunk: string) => `${number} is already on the SIP trunk “${trunk}”.`,
} as const;

/** A SIP number: an E.164 number, or an extension (2–15 digits) the PBX dials. */
export const sipNumberSchema = z
  .string({ error: SIP_NUMBER_MESSAGES.invalidNumber })
  .transform((v) => v.replace(/[\s().-]/g, ""))
  .pipe(z.string().regex(/^(\+[1-9]\d{6,14}|\d{2,15})$/, SIP_NUMBER_MESSAGES.invalidNumber))
  .meta(oneOfText(e164Format(), extensionFormat));
