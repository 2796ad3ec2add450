import cluster from "node:cluster";
import { buildApp, defaultWebRoot } from "./app.ts";
import { createSmtpMailer } from "./auth/mailer.ts";
import { primaryLog, runPrimary } from "./cluster.ts";
import { ConfigError, loadConfig, type Config } from "./config.ts";
import { databaseSourceFromConfig, openDatabase } from "./db/client.ts";
import { restrictNewFiles, secureDataDir } from "./data-dir.ts";
import { sealLegacyToolHeaders } from "./modules/tools/tool-secrets.ts";
import { createSecretBox } from "./secrets/crypto.ts";
import { drainableOf, drainCalls } from "./instances/drain.ts";
import { ensureAppSecret } from "./secrets/app-secret.ts";
import { onShutdown, SHUTDOWN_GRACE_MS } from "./shutdown.ts";

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
  // Before anything writes to DATA_DIR: files 0600, folders 0700.
  restrictNewFiles();
  // Worker processes need a database every process can reach: PGlite is one process's files.
  const workers = config.databaseUrl ? config.workers : 1;
  if (cluster.isWorker) return runInstance(config, { prepared: true });
  if (workers === 1) return runInstance(config, { prepared: false });

  // The primary prepares once what workers must not race on (the generated secret, migrations).
  const loosened = secureDataDir(config.dataDir);
  const { secret, generated } = ensureAppSecret(config.dataDir, config.appSecret);
  const database = await openDatabase(databaseSourceFromConfig(config));
  await database.migrate();
  const sealedTools = await sealLegacyToolHeaders(database.db, createSecretBox(secret));
  await database.close();
  if (loosened.length) primaryLog("warn", `Took group/other access away from ${loosened.length} path(s) in ${config.dataDir} (now 0700 folders, 0600 files)`);
  if (sealedTools) primaryLog("info", `Encrypted the header values of ${sealedTools} tool(s) stored before header encryption`);
  if (generated) primaryLog("info", `Generated APP_SECRET into ${config.dataDir}/app-secret (keep this file safe)`);
  runPrimary({ workers, appSecret: secret, instanceId: config.instanceId, stopTimeoutMs: config.drainTimeoutMs + SHUTDOWN_GRACE_MS + 5_000 });
}

/** One instance: the whole server in this process (alone, or as one of the primary's workers). */
async function runInstance(config: Config, { prepared }: { prepared: boolean }) {
  const loosened = prepared ? [] : secureDataDir(config.dataDir);
  const { secret, generated } = ensureAppSecret(config.dataDir, config.appSecret);
  const database = await openDatabase(databaseSourceFromConfig(config));
  if (!prepared) await database.migrate();
  const sealedTools = prepared ? 0 : await sealLegacyToolHeaders(database.db, createSecretBox(secret));
  // PGlite writes its files 0666 whatever the umask; the 0700 folder is what guards the ones it
  // writes later, and this pass tidies the modes of those it wrote while opening.
  if (!prepared) secureDataDir(config.dataDir);

  const app = await buildApp(
    { ...config, appSecret: secret },
    { database, mailer: config.smtpUrl ? createSmtpMailer(config.smtpUrl) : undefined, webRoot: defaultWebRoot },
  );
  if (loosened.length) {
    app.log.warn(`Took group/other access away from ${loosened.length} path(s) in ${config.dataDir} (now 0700 folders, 0600 files)`);
  }
  if (sealedTools) app.log.info(`Encrypted the header values of ${sealedTools} tool(s) stored before header encryption`);
  if (!config.secureCookies) {
    if (config.env === "production") app.log.warn("ALLOW_HTTP_IN_PRODUCTION=true: session cookies are sent over plain http");
  }
  if (generated) app.log.info(`Generated APP_SECRET into ${config.dataDir}/app-secret (keep this file safe)`);
  if (!config.smtpUrl) app.log.info("SMTP_URL is not set: e-mail confirmation is off, so new accounts are active at once");
  app.log.info(`Database: ${database.kind === "pglite" ? `embedded PostgreSQL in ${config.dataDir}/pglite` : "PostgreSQL server (DATABASE_URL)"}`);
  if (database.kind === "pglite") app.log.info("Embedded database: one process; with a PostgreSQL server (DATABASE_URL) the server runs WORKERS worker processes");
  else if (!cluster.isWorker) app.log.info("WORKERS=1: one process");

  onShutdown(
    { info: (msg) => app.log.info(msg), error: (obj, msg) => app.log.error(obj, msg) },
    async (signal) => {
      if (signal === "SIGTERM") {
        // A planned stop (deploy, scale-in): take no new calls, let the live ones finish a while.
        const { drain, liveCalls } = app.ctx;
        const calls = drainableOf(liveCalls, app.sip.bridges);
        app.log.info(`SIGTERM received: draining ${calls.size} live call(s) for up to ${config.drainTimeoutMs} ms`);
        await drainCalls(drain, calls, config.drainTimeoutMs);
      }
      await app.close();
      await database.close();
    },
    config.drainTimeoutMs + SHUTDOWN_GRACE_MS,
  );

  // Worker processes would share SIP's UDP port, and a dialog's requests could reach a worker that
  // does not hold the call: the first worker alone takes SIP (ADR 058).
  if (!config.sip.enabled) app.log.info("SIP_ENABLED=false: no SIP listener");
  else if (!cluster.isWorker || cluster.worker?.id === 1) {
    // Calls this instance's start found open (left by an earlier process) get their BYE now.
    if (await app.sip.start(config.sip)) await app.sip.hangUpOrphans(app.ctx.instance.closedAtStart);
  }
  await app.listen({ port: config.port, host: config.host });
  app.log.info(`Instance ${app.ctx.instance.id} (lease ${config.instanceLeaseMs} ms)`);
}

await main();
