/**
 * `{{name}}` placeholders in an assistant's instructions and first message, filled per call:
 * from the outbound request or the campaign row, plus the built-ins every call has. A
 * placeholder with no value becomes empty. Both sides use this file (the form lists the
 * placeholders it finds), so no DOM and no node:* here.
 */

/** A name: letters, digits and underscores, starting with a letter or underscore; spaces inside the braces are allowed. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

export const BUILT_IN_VARIABLES = ["caller_number", "called_number", "direction", "now"] as const;
export type BuiltInVariable = (typeof BUILT_IN_VARIABLES)[number];

export type CallVariables = Record<string, string>;

/** The distinct placeholder names in `texts`, in order of first appearance. */
export function findPlaceholders(...texts: (string | null | undefined)[]): string[] {
  const found = new Set<string>();
  for (const text of texts) for (const m of (text ?? "").matchAll(PLACEHOLDER)) found.add(m[1]!);
  return [...found];
}

export function fillPlaceholders(text: string, variables: CallVariables): string {
  return text.replace(PLACEHOLDER, (_, name: string) => (Object.hasOwn(variables, name) ? variables[name]! : ""));
}

/** True when `zone` is an IANA time zone this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `{{now}}`: the date and time in the assistant's time zone, e.g. "Wednesday, 25 November 2026, 17:05 (Europe/London)". */
export function formatNow(at: Date, timeZone: string): string {
  return `${nowFormat(timeZone).format(at)} (${timeZone})`;
}

/** One formatter per time zone (there are a few hundred): making one costs what a thousand formats do. */
const nowFormats = new Map<string, Intl.DateTimeFormat>();
function nowFormat(timeZone: string): Intl.DateTimeFormat {
  let format = nowFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-GB", { timeZone, weekday: "long", day: "numeric", month: "long", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    nowFormats.set(timeZone, format);
  }
  return format;
}

/** The variables a call runs with: the request's or the row's, then the built-ins (which win). */
export function callVariables(
  given: CallVariables,
  call: { callerNumber: string; calledNumber: string; direction: "inbound" | "outbound"; timeZone: string; at: Date },
): CallVariables {
  return {
    ...given,
    caller_number: call.callerNumber,
    called_number: call.calledNumber,
    direction: call.direction,
    now: formatNow(call.at, call.timeZone),
  };
}
