/**
 * Where to go after logging in or signing up (`?next=`), e.g. back to an invitation link. Only a
 * path of this site is followed: "//evil.example" or "https://…" would send the user elsewhere.
 */
export function safeNextPath(value: string | null | undefined): string | null {
  if (!value || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return null;
  return value;
}

/** `path` with `?next=` added when there is somewhere to come back to. */
export function withNext(path: string, next: string | null): string {
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}
