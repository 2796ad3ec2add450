/**
 * The server side of the phone-call benches (bench:calls, bench:live): the real app in this
 * process (embedded database, or a fresh database on a PostgreSQL server when `postgresUrl` is
 * given, dropped at the end; a real port that is also its PUBLIC_URL), a user owning a phone
 * number with Twilio credentials, and an assistant with a first message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase, type Database } from "../src/server/db/client.ts";
import { calls, phoneNumbers } from "../src/server/db/schema.ts";
import { and, count, isNotNull } from "drizzle-orm";
import { createCredentialsService } from "../src/server/modules/credentials/credentials.service.ts";
import { injectPost, newAccount, signUp } from "../tests/sign-up.ts";
import { createScratchDatabase, dropScratchDatabase } from "../tests/instances/scratch-database.ts";
import type { FrameMetrics } from "../src/server/voice/seams.ts";
import { freePort } from "./bench-process.ts";
import type { CallerTarget } from "./bench-calls-shared.ts";

const AUTH_TOKEN = "bench-calls-auth-token-0123456789";
/** The app's APP_SECRET: a server started on the same database later must use it to read the credentials. */
export const BENCH_APP_SECRET = "bench-calls-secret-0123456789abcdef0123456789";

export interface PhoneBenchApp {
  app: FastifyInstance;
  database: Database;
  origin: string;
  /** The number owner's session cookie. */
  cookie: string;
  organizationId: string;
  /** What the simulated callers dial. */
  target: CallerTarget;
  /** The database's URL on a PostgreSQL server (`postgresUrl` given), for another server to use. */
  databaseUrl: string | null;
  /** Stops the app, keeping the database until `close`. */
  stopApp(): Promise<void>;
  close(): Promise<void>;
}

/** Call records ended and priced: what a bench waits for before it reads the database. */
export async function finalisedCalls(db: Database["db"]): Promise<number> {
  const [counted] = await db.select({ n: count() }).from(calls).where(and(isNotNull(calls.endTime), isNotNull(calls.cost)));
  return counted?.n ?? 0;
}

export async function startPhoneBenchApp(
  provider: { baseUrl: string; apiKey: string },
  callMetrics?: FrameMetrics,
  env: Record<string, string> = {},
  postgresUrl?: string,
  /** The embedded database in this folder instead of in memory (another server opens it after `close`). */
  pgliteDir?: string,
): Promise<PhoneBenchApp> {
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-phone-"));
  const scratch = postgresUrl ? await createScratchDatabase("switchboard_bench_phone", postgresUrl) : undefined;
  const database = await openDatabase(scratch ? { kind: "postgres", url: scratch.url } : { kind: "pglite", dataDir: pgliteDir });
  await database.migrate();
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, OPENAI_BASE_URL: provider.baseUrl, PUBLIC_URL: origin, ...env });
  const app = await buildApp({ ...config, appSecret: BENCH_APP_SECRET }, { database, callMetrics });
  await app.listen({ port, host: "127.0.0.1" });

  const { cookie, organizationId } = await signUp(injectPost(app), newAccount("Bench", "bench-"));
  const credentials = createCredentialsService(app.ctx);
  await credentials.save(organizationId, "openai_api_key", provider.apiKey);
  await credentials.save(organizationId, "twilio_auth_token", AUTH_TOKEN);
  const assistant = await app.inject({
    method: "POST",
    url: "/api/assistants",
    headers: { cookie },
    payload: { name: "Bench", instructions: "Talk.", first_message: "Hello, thanks for calling." },
  });
  const assistantId = (assistant.json() as { id: string }).id;
  const to = "+15550100";
  await database.db.insert(phoneNumbers).values({ organizationId, phoneNumber: to, countryCode: "US", status: "active", assistantId });

  let appStopped: Promise<void> | undefined;
  const stopApp = () => (appStopped ??= app.close());
  return {
    app,
    database,
    origin,
    cookie,
    organizationId,
    target: { origin, authToken: AUTH_TOKEN, to },
    databaseUrl: scratch?.url ?? null,
    stopApp,
    close: async () => {
      await stopApp();
      await database.close();
      await dropScratchDatabase(scratch);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
