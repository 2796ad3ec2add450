import { buildApp, defaultWebRoot } from "./app.ts";
import { createSmtpMailer } from "./auth/mailer.ts";
import { ConfigError, loadConfig } from "./config.ts";
import { databaseSourceFromConfig, openDatabase } from "./db/client.ts";
import { closeInterruptedCalls } from "./modules/calls/calls.repo.ts";
import { ensureAppSecret } from "./secrets/app-secret.ts";
import { onShutdown } from "./shutdown.ts";

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
  const interrupted = await closeInterruptedCalls(database.db);

  const app = await buildApp(
    { ...config, appSecret: secret },
    { database, mailer: config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined, webRoot: defaultWebRoot },
  );
  if (interrupted) app.log.warn(`Closed ${interrupted} call(s) left in progress when the server last stopped`);
  if (generated) app.log.info(`Generated APP_SECRET into ${config.dataDir}/app-secret (keep this file safe)`);
  if (!config.smtpUrl) app.log.info("SMTP_URL is not set: e-mail confirmation is off, so new accounts are active at once");
  app.log.info(`Database: ${database.kind === "pglite" ? `embedded PostgreSQL in ${config.dataDir}/pglite` : "PostgreSQL server (DATABASE_URL)"}`);

  onShutdown(
    { info: (msg) => app.log.info(msg), error: (obj, msg) => app.log.error(obj, msg) },
    async () => {
      await app.close();
      await database.close();
    },
  );

  await app.listen({ port: config.port, host: config.host });
}

await main();
