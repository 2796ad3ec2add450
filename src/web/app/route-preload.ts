import { listPagePath, prefetchGet } from "@/lib/api";
import { appChunks } from "./route-chunks";

/** The session check every app page waits for (features/auth/session.ts reads the same path). */
const SESSION_PATH = "/api/auth/get-session";

/**
 * What each app page needs first: its chunk and the GET requests its first render makes. Without
 * this a full load of /assistants is a waterfall — entry chunk, then the session check, then the
 * layout chunk, then the page chunk, then its data; with it all of them start together.
 */
const APP_PAGES: Record<string, { chunk: () => Promise<unknown>; data: string[] }> = {
  "/assistants": { chunk: appChunks.assistants, data: [listPagePath("/api/assistants")] },
  "/phone-numbers": { chunk: appChunks.phoneNumbers, data: [] },
  "/calls": { chunk: appChunks.calls, data: ["/api/calls"] },
  "/campaigns": { chunk: appChunks.campaigns, data: [listPagePath("/api/campaigns")] },
  // The board's list arrives on its socket, not by GET.
  "/live": { chunk: appChunks.live, data: [] },
  "/tools": { chunk: appChunks.tools, data: [listPagePath("/api/tools")] },
  "/knowledge": { chunk: appChunks.knowledge, data: [listPagePath("/api/knowledge-bases")] },
  "/settings": { chunk: appChunks.settings, data: ["/api/credentials/openai_api_key"] },
};

/** Called once by main.tsx before the first render. Marketing pages start nothing extra. */
export function preloadRoute(pathname: string) {
  const route = APP_PAGES[pathname.replace(/\/+$/, "") || "/"];
  if (!route) return;
  prefetchGet(SESSION_PATH);
  // The role decides what the layout and page show (lib/use-membership.ts).
  prefetchGet("/api/organization");
  for (const path of route.data) prefetchGet(path);
  // A chunk that fails here is fetched again (and reported) by React.lazy on render.
  for (const load of [appChunks.guards, appChunks.layout, route.chunk]) void load().catch(() => undefined);
}
