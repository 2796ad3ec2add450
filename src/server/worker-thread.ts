/**
 * Starts a worker thread from its entry file `name` (no extension) beside the module at
 * `callerUrl`: built, the bundle beside main.js (scripts/build-server.ts bundles each entry there
 * under its own name); run from source (dev, tests), the .ts behind tsx's loader — registered in
 * the thread itself, since Node 20 does not carry a parent's `--import tsx` hooks into a worker.
 */
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker, type WorkerOptions } from "node:worker_threads";

export function startWorkerThread(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (!callerUrl.endsWith(".ts")) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  // The ES module build of tsx's API (its CommonJS build's register() cannot find its own hooks).
  const tsx = pathToFileURL(createRequire(callerUrl).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
  const file = new URL(`./${name}.ts`, callerUrl).href;
  return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(file)}); });`, { ...options, eval: true });
}
