/**
 * RFC 4180 quoting, and a leading quote on text a spreadsheet would run as a formula (an ended
 * reason or assistant name starting with "=", "@", ...). Phone numbers ("+1555...") stay numbers.
 * Every CSV export uses it (calls, campaign contacts).
 */
export function csvField(value: string): string {
  const guarded = /^[=@\t\r]/.test(value) || /^[+-](?![\d\s]*$)/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}
