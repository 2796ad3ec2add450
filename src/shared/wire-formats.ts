/**
 * How the API's document states the rules of a text field that the shared schemas check in code
 * (a refinement, or a transform before the check): JSON Schema annotations given with `.meta()`,
 * so a client generator and a validator know what the server accepts. Each pattern accepts only
 * what the server accepts; custom `format`s name a rule too long for a pattern, with its check
 * beside the schema that uses it (a client that does not know the format treats it as text).
 */

/** What people type inside a number and the server drops before checking it: spaces, dashes, dots, brackets. */
const SEPARATORS = "[\\s\\-().]*";

/** A number in E.164 after the separators are dropped: "+", a non-zero digit, `min`–`max` digits in all. */
export const e164Format = (min = 7, max = 15) => ({
  pattern: `^${SEPARATORS}\\+${SEPARATORS}[1-9](?:${SEPARATORS}\\d){${min - 1},${max - 1}}${SEPARATORS}$`,
  examples: ["+442071234567"],
});

/** An http(s) URL without a user name or password (the server refuses those, which would be stored in clear). */
export const httpUrlFormat = (schemes: "https" | "http(s)") => ({
  format: "uri",
  pattern: `^\\s*${schemes === "https" ? "[Hh][Tt][Tt][Pp][Ss]" : "[Hh][Tt][Tt][Pp][Ss]?"}://[^\\s/?#@]+(?:[/?#][^\\s]*)?\\s*$`,
});

/** A service's base URL: https, no user name or password, no query or fragment. */
export const baseUrlFormat = { format: "uri", pattern: "^\\s*[Hh][Tt][Tt][Pp][Ss]://[^\\s/?#@]+(?:/[^\\s?#]*)?\\s*$", examples: ["https://api.groq.com/openai/v1"] };

/** An extension a PBX dials: 2–15 digits (separators dropped, as for a number). */
export const extensionFormat = { pattern: `^${SEPARATORS}\\d(?:${SEPARATORS}\\d){1,14}${SEPARATORS}$`, examples: ["2001"] };

/** One of `alternatives`, each a string. */
export const oneOfText = (...alternatives: Record<string, unknown>[]) => ({ anyOf: alternatives.map((a) => ({ type: "string", ...a })) });

/** An IANA time zone this server knows (Intl), such as Europe/London. */
export const timeZoneFormat = { format: "iana-time-zone", examples: ["Europe/London"] };

/** An IPv4 or IPv6 address, with or without a CIDR length: 203.0.113.10, 203.0.113.0/24, 2001:db8::/32. */
export const ipOrCidrFormat = { format: "ip-or-cidr", examples: ["203.0.113.0/24"] };

/** A SIP URI: sip: or sips:, an optional user, a host, an optional port and ;parameters. */
export const sipUriFormat = { format: "sip-uri", examples: ["sip:pbx.example.com", "sips:sip.carrier.net:5061"] };

/**
 * Required text is trimmed first, so text of spaces only is empty: said to the document as a
 * pattern. After the trim it fails only with the `.min(1)` before it, which aborts, so the
 * message is said once.
 */
export const NOT_BLANK = /\S/;

// ── Rules between fields, as JSON Schema's if/then ───────────────────────────────────────────

type Json = Record<string, unknown>;

/** `field` is given: present, not null, and (text) not empty or, when `blank` counts as empty, not spaces only. */
export const given = (field: string, kind: "text" | "password" | "any" = "text"): Json => ({
  required: [field],
  properties: { [field]: kind === "any" ? { not: { type: "null" } } : { type: "string", minLength: 1, ...(kind === "text" ? { pattern: NOT_BLANK.source } : {}) } },
});

/** When `condition` holds, so must `then` (JSON Schema 2020-12 if/then). */
// JSON Schema names the keyword `then`; the value is data for the document, never awaited.
// oxlint-disable-next-line unicorn/no-thenable
export const when = (condition: Json, then: Json): Json => ({ if: condition, then });

/** Every rule at once. */
export const rules = (...all: Json[]) => ({ allOf: all });
