/**
 * The code-split chunks of the signed-in app, in one place: the router renders them lazily and
 * route-preload.ts starts downloading them with the entry chunk. The browser's module map makes
 * both share one download.
 */
export const appChunks = {
  guards: () => import("@/features/auth/guards"),
  layout: () => import("./app-layout"),
  assistants: () => import("./assistants-route"),
  phoneNumbers: () => import("@/features/phone-numbers/phone-numbers-page"),
  calls: () => import("@/features/calls/calls-page"),
  campaigns: () => import("@/features/campaigns/campaigns-page"),
  campaign: () => import("@/features/campaigns/campaign-page"),
  live: () => import("@/features/live/live-page"),
  tools: () => import("@/features/tools/tools-page"),
  knowledge: () => import("@/features/knowledge/knowledge-page"),
  settings: () => import("./settings-route"),
};
