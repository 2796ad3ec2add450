/**
 * A query as the document's styles write it: form style (an array is the parameter repeated), and
 * an object parameter (the calls' `data` filters) as deepObject, `name[field]=value`.
 */
export function queryString(query: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
    else if (value !== null && typeof value === "object") for (const [field, v] of Object.entries(value)) params.append(`${name}[${field}]`, String(v));
    else params.append(name, String(value));
  }
  return params.toString();
}
