import { buildApp, defaultWebRoot } from "./app.ts";
import { createSmtpMailer } from "./auth/mailer.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { databaseSourceFromConfig, openDatabase } from "./db/client.ts";
import { drainCalls } from "./instances/drain.ts";
import { ensureAppSecret } from "./secrets/app-secret.ts";

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { secret, generated } = ensureAppSecret(config.dataDir, config.appSecret);
  const database = await openDatabase(databaseSourceFromConfig(config));
  await database.migrate();

  const app = await buildApp(
    { ...config, appSecret: secret },
    { database, mailer: config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined, webRoot: defaultWebRoot },
  );
  if (generated) app.log.info(`Generated APP_SECRET into ${config.dataDir}/app-secret (keep this file safe)`);
  if (!config.smtpUrl) app.log.info("SMTP_URL is not set: e-mail confirmation is off, so new accounts are active at once");
  app.log.info(`Database: ${database.kind === "pglite" ? `embedded PostgreSQL in ${config.dataDir}/pglite` : "PostgreSQL server (DATABASE_URL)"}`);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    if (signal === "SIGTERM") {
      // A planned stop (deploy, scale-in): take no new calls, let the live ones finish a while.
      const { drain, liveCalls } = app.ctx;
      app.log.info(`SIGTERM received: draining ${liveCalls.size} live call(s) for up to ${config.drainTimeoutMs} ms`);
      await drainCalls(drain, liveCalls, config.drainTimeoutMs);
    }
    app.log.info(`${signal} received: finishing live calls and closing`);
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));

  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Instance ${app.ctx.instance.id} (lease ${config.instanceLeaseMs} ms)`);
}

await main();
