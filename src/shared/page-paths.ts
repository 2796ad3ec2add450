/** The pages a visitor opens with no token: the marketing site and the sign-in screens. */
export const VISITOR_PAGE_PATHS: readonly string[] = [
  "/",
  "/request-a-demo",
  "/how-it-works",
  "/pricing",
  "/company/about",
  "/company/press",
  "/contact",
  "/resources/guides",
  "/resources/call-recordings",
  "/blog",
  "/privacy-policy",
  "/industries",
  "/use-cases",
  "/login",
  "/signup",
  "/forgot-password",
];

/** The signed-in app's pages. */
export const APP_PAGE_PATHS: readonly string[] = [
  "/assistants",
  "/phone-numbers",
  "/calls",
  "/campaigns",
  "/live",
  "/tools",
  "/knowledge",
  "/settings",
];

/** Where an invitation link lands (`${PUBLIC_URL}/invite?token=…`, made by the team module). */
export const INVITE_PATH = "/invite";

/**
 * The single-page app's page addresses, so the server can answer an unknown path with HTTP 404
 * (the page itself still renders the app's not-found page). Keep in step with
 * src/web/app/router.tsx; src/server/http/page-paths.test.ts checks every route there is listed here.
 */
export const PAGE_PATHS: readonly string[] = [...VISITOR_PAGE_PATHS, "/reset-password", INVITE_PATH, ...APP_PAGE_PATHS];

/** Pages with one segment of their own (`/industries/:slug`); an unknown slug is the page's to refuse. */
export const PAGE_PATH_PREFIXES: readonly string[] = ["/industries/", "/use-cases/", "/product/", "/campaigns/"];

/** Whether `pathname` (no query) names a page of the app; a trailing slash is allowed, as the router allows it. */
export function isPagePath(pathname: string): boolean {
  const path = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  if (PAGE_PATHS.includes(path)) return true;
  return PAGE_PATH_PREFIXES.some((prefix) => path.startsWith(prefix) && path.length > prefix.length && !path.slice(prefix.length).includes("/"));
}
