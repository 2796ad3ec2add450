/**
 * Phone numbers as people read and write them, for the countries numbers are bought in
 * (PHONE_COUNTRIES): the country's name, an E.164 number grouped the country's way, and a
 * national number ("07700 900112") made E.164 with a default country. No numbering-plan
 * database: the groupings are the common ones per country, and anything else stays as it is.
 */
import { E164 } from "./assistants.js";
import { PHONE_COUNTRIES, type PhoneCountryCode } from "./phone-numbers.js";

/** "United Kingdom" for "GB"; an unknown code as it is; null as a dash. */
export function countryName(code: string | null): string {
  if (code === null) return "—";
  return PHONE_COUNTRIES.find((c) => c.code === code)?.name ?? code;
}

/** Digit groups after the country code, by the national significant number. */
const GROUPS: Record<string, (n: string) => number[]> = {
  "+1": (n) => (n.length === 10 ? [3, 3, 4] : []),
  // London and other 02x numbers 2-4-4, everything else (mobiles, 01xxx) 4-6.
  "+44": (n) => (n.length === 10 ? (n.startsWith("2") ? [2, 4, 4] : [4, 6]) : []),
  // Mobiles (4xx) 3-3-3, geographic 1-4-4.
  "+61": (n) => (n.length === 9 ? (n.startsWith("4") ? [3, 3, 3] : [1, 4, 4]) : []),
  "+33": (n) => (n.length === 9 ? [1, 2, 2, 2, 2] : []),
  // Area codes vary in length: the first three digits, then the rest.
  "+49": (n) => (n.length >= 6 ? [3, n.length - 3] : []),
};

/** "+44 7700 900112" for "+447700900112"; a number of no known plan as it is. */
export function formatPhoneNumber(e164: string): string {
  for (const dial of Object.keys(GROUPS)) {
    if (!e164.startsWith(dial)) continue;
    const national = e164.slice(dial.length);
    const sizes = GROUPS[dial]!(national);
    if (sizes.length === 0) return e164;
    const parts: string[] = [];
    let at = 0;
    for (const size of sizes) {
      parts.push(national.slice(at, at + size));
      at += size;
    }
    return [dial, ...parts].join(" ");
  }
  return e164;
}

/**
 * A number as written in a file or form, made E.164: spaces, dashes, dots and brackets dropped;
 * "00" read as "+"; a national number (a leading 0 trunk prefix, or a North American 10 digits)
 * given the default country's code. null when it is no phone number.
 */
export function toE164(raw: string, defaultCountry: PhoneCountryCode | null = null): string | null {
  let number = raw.replace(/[\s\-().]/g, "");
  if (number.startsWith("00")) number = `+${number.slice(2)}`;
  if (!number.startsWith("+") && defaultCountry && /^\d+$/.test(number)) {
    const dial = PHONE_COUNTRIES.find((c) => c.code === defaultCountry)!.dial;
    // North America: ten digits with an area code from 2-9, or eleven with the leading 1.
    const nanp = /^1?([2-9]\d{9})$/.exec(number);
    // Elsewhere a national number starts with the trunk prefix 0, which the E.164 form drops.
    if (dial === "+1") number = nanp ? `+1${nanp[1]}` : number;
    else if (/^0[1-9]/.test(number)) number = `${dial}${number.slice(1)}`;
  }
  return E164.test(number) ? number : null;
}
