import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as base, expect, type Page } from "@playwright/test";
import type { FastifyInstance } from "fastify";
import { buildApp, defaultWebRoot, type AppConfig, type AppDeps } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { HTTP_ERROR_MESSAGES } from "../src/shared/http-errors.ts";
import { openDatabase, type Db } from "../src/server/db/client.ts";
import { startFakeRealtime, type FakeRealtime } from "../tests/fakes/fake-realtime.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../tests/fakes/twilio-rest.ts";
import { freePort } from "../tests/free-port.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";

export interface TestServer {
  url: string;
  db: Db;
  app: FastifyInstance;
  config: AppConfig;
  /** The fake OpenAI (REST + Realtime GA socket) this server talks to; its key is `openai.apiKey`. */
  openai: FakeRealtime;
  /** The fake Twilio REST API (TWILIO_API_BASE points at it); `twilio.account` is a ready account. */
  twilio: FakeTwilioRest;
}

/**
 * The real server on a random port with its own fresh embedded database and fake OpenAI.
 * `deps` adds app dependencies (a mailer for the SMTP specs).
 */
export async function startTestServer(env: Record<string, string> = {}, deps: Partial<AppDeps> = {}): Promise<TestServer & { close(): Promise<void> }> {
  const openai = await startFakeRealtime();
  const twilio = await startFakeTwilioRest();
  const database = await openDatabase({ kind: "pglite" });
  await database.migrate();
  // PUBLIC_URL must be the address the browser uses (the live-call socket checks Origin against
  // it), so the port is chosen before the app is built. Another process can take a free port
  // before we listen on it: then the app is built again on another one.
  // A spec that chose its own PORT (and PUBLIC_URL from it) is listened on there.
  for (let attempt = 1; ; attempt++) {
    const port = env.PORT ? Number(env.PORT) : await freePort();
    const url = `http://127.0.0.1:${port}`;
    const loaded = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "warn", DATA_DIR: mkdtempSync(join(tmpdir(), "switchboard-e2e-")), PORT: String(port), PUBLIC_URL: url, TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", OPENAI_BASE_URL: openai.baseUrl, TWILIO_API_BASE: twilio.baseUrl, TRUST_PROXY: "true", ...env });
    const config: AppConfig = { ...loaded, appSecret: randomBytes(32).toString("hex") };
    // E2E_WEB_ROOT lets parallel runs each serve their own build instead of racing on dist/web.
    const app = await buildApp(config, { database, webRoot: process.env.E2E_WEB_ROOT ?? defaultWebRoot, ...deps });
    try {
      await app.listen({ host: "127.0.0.1", port });
    } catch (err) {
      await app.close();
      if (env.PORT || attempt === 5 || (err as NodeJS.ErrnoException).code !== "EADDRINUSE") throw err;
      continue;
    }
    return {
      url,
      db: database.db,
      app,
      config,
      openai,
      twilio,
      async close() {
        await app.close();
        await database.close();
        await openai.close();
        await twilio.close();
      },
    };
  }
}

/**
 * Each Playwright worker runs the real server in-process — production build, real socket, its own
 * fresh embedded database — so specs can check what landed in the database.
 */
export const test = base.extend<{ user: { email: string; password: string; name: string }; twilioStock: void }, { server: TestServer }>({
  server: [
    // Playwright reads a fixture's dependencies from its destructuring pattern, so it must be `{}`.
    // oxlint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startTestServer();
      await use(server);
      await server.close();
    },
    // Its own time: starting a database and migrating it is the worker's cost, not the first test's.
    { scope: "worker", timeout: 120_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  /** The worker's server outlives each test: numbers one test made Twilio run out of are back for the next. */
  twilioStock: [
    async ({ server }, use) => {
      server.twilio.resetAvailable();
      await use();
    },
    { auto: true },
  ],
  /** A fresh account, signed in through the API so specs that aren't about login start on the app. */
  user: async ({ page, server }, use) => {
    const { email, password, name } = await signUp(requestPost(page.request, server.url), newAccount("Dana Scully", "e2e-"));
    await use({ email, password, name });
  },
});

export { expect };

/** Holds the next matching request until `release()` is called, so a transient state can be seen on screen. */
export async function hold(page: Page, url: string | RegExp, method = "GET") {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(url, async (route) => {
    if (route.request().method() !== method) return route.fallback();
    await released;
    await route.fallback();
  }, { times: 1 });
  return release;
}

/** The 429 `refuseReads` answers with, as the API words it. */
export const RATE_LIMITED_MESSAGE = HTTP_ERROR_MESSAGES.rateLimited("30 seconds");

/**
 * Answers every GET of `url` with a 429 (a 4xx, which the client does not retry: a retry waits
 * while the page is hidden, as a headless one can be) until `allow()` is called.
 */
export async function refuseReads(page: Page, url: string) {
  let refuse = true;
  await page.route(url, (route) =>
    refuse && route.request().method() === "GET"
      ? route.fulfill({ status: 429, json: { error: { code: "rate_limited", message: RATE_LIMITED_MESSAGE } } })
      : route.fallback(),
  );
  return () => void (refuse = false);
}

/** Settings → the Calls card (the outbound limit, the busy message, the allowed destinations). */
export const callsSettingsCard = (page: Page) => page.locator("[data-slot=card]").filter({ has: page.getByText("Calls", { exact: true }) });

export async function expectToast(page: Page, title: string | RegExp) {
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: title }).first()).toBeVisible();
}
