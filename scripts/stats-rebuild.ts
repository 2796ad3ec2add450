/**
 * `npm run stats:rebuild`: sums every call into the stats' roll-ups again, the turns' latency
 * counts too (ADR 061, ADR 073) — after an import that wrote calls with the triggers off
 * (pg_restore --disable-triggers, a replica's copy), or to set them straight by hand. Reads the
 * same settings as the server (DATABASE_URL, or the embedded database in DATA_DIR, which the
 * server must not hold open meanwhile). Writers of calls wait while it runs; the Calls page's
 * figures are exact throughout.
 */
import { loadConfig } from "../src/server/config.ts";
import { databaseSourceFromConfig, openDatabase } from "../src/server/db/client.ts";
import { rebuildCallRollups } from "../src/server/modules/calls/calls-rollups.repo.ts";

const database = await openDatabase(databaseSourceFromConfig(loadConfig()));
try {
  await database.migrate();
  const started = Date.now();
  await rebuildCallRollups(database.db);
  const { rows } = await database.sql("SELECT count(*)::int AS n FROM calls");
  console.log(`Stats roll-ups rebuilt from ${Number(rows[0]?.n ?? 0).toLocaleString("en-US")} calls in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await database.close();
}
