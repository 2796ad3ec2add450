/**
 * `npm run bench:web`: what a visitor downloads for the marketing pages, and their Lighthouse
 * scores. Builds the client if it is missing or older than its sources, starts the real server
 * (embedded database in a temporary DATA_DIR, a free port), then
 *  1. loads each page in Debian Chromium and sums the gzipped bodies of every JS and CSS file it fetched;
 *  2. runs Lighthouse (performance, accessibility) against a Chromium started here with
 *     --remote-debugging-port, with the mobile (default) and the desktop presets; the median of
 *     `--runs N` (default 3) is shown. Lighthouse is not a dependency of the product: it lives in
 *     bench/ (its own package.json and lock, ADR 034), installed there on first use.
 *  3. time to content: a cold load (fresh browser context, same signed-in cookie) of the landing page
 *     and three app pages, from navigation start to the moment the page's content is in the DOM
 *     (the landing headline; the rows of /assistants and /tools, seeded with 10 of each; the key
 *     status on /settings); the median and the fastest of `--runs N`;
 *  4. axe (WCAG 2.1 A/AA, best practice) over every page signed out and signed in: violations by impact.
 * Options: --runs N, --skip-lighthouse, --skip-axe, --verbose (list each file). BENCH_WEB_ROOT=<dir>
 * measures a build in another folder.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "playwright-core";
import { freePort } from "../tests/free-port.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { axeViolations, settle, SIGNED_IN_PAGES, SIGNED_OUT_PAGES } from "../tests/a11y-pages.ts";
import { buildApp, defaultWebRoot, type AppConfig } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";

const PAGES = ["/", "/request-a-demo"];
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run", "--disable-sync"];
const AIM = { landingJsKb: 120, score: 95 };
const root = resolve(import.meta.dirname, "..");

const args = process.argv.slice(2);
const runs = Math.max(1, Number(args[args.indexOf("--runs") + 1]) || 3);
const skipLighthouse = args.includes("--skip-lighthouse");
const skipAxe = args.includes("--skip-axe");
const verbose = args.includes("--verbose");
const webRoot = resolve(process.env.BENCH_WEB_ROOT ?? defaultWebRoot);

const benchTools = join(root, "bench");
const lighthouseBin = join(benchTools, "node_modules/.bin/lighthouse");

/** Installs bench/ (Lighthouse at the version its lock pins) unless that version is already there. */
function installLighthouseIfNeeded() {
  const readManifest = (file: string) => (existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as { version?: string; dependencies?: Record<string, string> }) : null);
  const wanted = readManifest(join(benchTools, "package.json"))?.dependencies?.lighthouse;
  if (existsSync(lighthouseBin) && readManifest(join(benchTools, "node_modules/lighthouse/package.json"))?.version === wanted) return;
  console.log(`Installing Lighthouse ${wanted} into bench/ ...`);
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: benchTools, stdio: "inherit" });
  if (result.status !== 0) throw new Error("npm ci in bench/ failed");
}

function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

function buildIfNeeded() {
  const index = join(webRoot, "index.html");
  const sources = ["src/web", "src/shared", "index.html", "vite.config.ts", "package.json", "public"].map((p) => join(root, p)).filter(existsSync);
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  if (built > Math.max(...sources.map(newestMtime))) return;
  console.log(`Building the client into ${webRoot} ...`);
  const result = spawnSync(join(root, "node_modules/.bin/vite"), ["build", "--outDir", webRoot, "--emptyOutDir", "--logLevel", "warn"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) throw new Error("vite build failed");
}

async function startServer() {
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-web-"));
  const database = await openDatabase({ kind: "pglite", dataDir: join(dataDir, "pglite") });
  await database.migrate();
  const port = await freePort();
  // Production build and settings, served over plain http on loopback (hence the explicit opt-out).
  const loaded = loadConfig({
    NODE_ENV: "production",
    LOG_LEVEL: "warn",
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ALLOW_HTTP_IN_PRODUCTION: "true",
    APP_SECRET: randomBytes(32).toString("hex"),
  });
  const config: AppConfig = { ...loaded, appSecret: loaded.appSecret! };
  const app = await buildApp(config, { database, webRoot });
  await app.listen({ host: "127.0.0.1", port });
  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface Transfer {
  jsKb: number;
  cssKb: number;
  files: { url: string; kind: "js" | "css"; gzipKb: number }[];
}

/** Loads a page as a first-time visitor and gzips (level 9, as a server would) every script and stylesheet it fetched. */
async function measureTransfer(baseUrl: string, path: string): Promise<Transfer> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const pending: Promise<Transfer["files"][number] | null>[] = [];
    const seen = new Set<string>();
    page.on("response", (response) => {
      const type = response.request().resourceType();
      if ((type !== "script" && type !== "stylesheet") || seen.has(response.url())) return;
      seen.add(response.url());
      pending.push(
        response
          .body()
          .then((body) => ({ url: new URL(response.url()).pathname, kind: type === "script" ? "js" : "css", gzipKb: gzipSync(body, { level: 9 }).length / 1024 }) as const)
          .catch(() => null),
      );
    });
    await page.goto(baseUrl + path, { waitUntil: "networkidle" });
    const files = (await Promise.all(pending)).filter((f) => f !== null);
    const sum = (kind: "js" | "css") => files.filter((f) => f.kind === kind).reduce((total, f) => total + f.gzipKb, 0);
    return { jsKb: sum("js"), cssKb: sum("css"), files };
  } finally {
    await browser.close();
  }
}

async function launchDebuggableChromium(): Promise<{ port: number; process: ChildProcess; userDataDir: string }> {
  const port = await freePort();
  const userDataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-chromium-"));
  const child = spawn(CHROMIUM, [...CHROMIUM_FLAGS, "--headless=new", `--remote-debugging-port=${port}`, `--user-data-dir=${userDataDir}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(() => reject(new Error("Chromium did not open its debugging port within 30 s")), 30_000);
    let output = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("DevTools listening on")) {
        clearTimeout(timer);
        resolveReady();
      }
    });
    child.once("exit", (code) => reject(new Error(`Chromium exited (${code}) before listening:\n${output}`)));
  });
  return { port, process: child, userDataDir };
}

class LighthouseRunError extends Error {}

/** One measurement, retried up to twice when Lighthouse reports that it could not measure. */
async function measureScores(url: string, port: number, preset: "mobile" | "desktop"): Promise<Scores> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runLighthouse(url, port, preset);
    } catch (error) {
      if (!(error instanceof LighthouseRunError) || attempt === 3) throw error;
      console.warn(`Lighthouse could not measure ${url} (${preset}), retrying: ${error.message}`);
    }
  }
}

interface Scores {
  performance: number;
  accessibility: number;
  metrics: string;
  failedA11y: string[];
}

/** The parts of Lighthouse's JSON report (its `lhr`) read here. */
interface LighthouseReport {
  runtimeError?: { code: string; message: string };
  categories: Record<string, { score: number | null; auditRefs: { id: string }[] } | undefined>;
  audits: Record<string, { id: string; score: number | null; scoreDisplayMode: string; numericValue?: number } | undefined>;
}

/** One Lighthouse CLI run against the Chromium listening on `port`; the report comes back on stdout. */
function lighthouseReport(url: string, port: number, preset: "mobile" | "desktop"): Promise<LighthouseReport> {
  const flags = [url, `--port=${port}`, "--output=json", "--output-path=stdout", "--only-categories=performance,accessibility", "--quiet"];
  if (preset === "desktop") flags.push("--preset=desktop");
  return new Promise((resolveReport, reject) => {
    execFile(lighthouseBin, flags, { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      // A run that could not measure still prints its report (with runtimeError) and exits non-zero.
      try {
        resolveReport(JSON.parse(stdout) as LighthouseReport);
      } catch {
        reject(new Error(`Lighthouse gave no report for ${url}${error ? ` (${error.message})` : ""}:\n${stderr.slice(-2000)}`));
      }
    });
  });
}

async function runLighthouse(url: string, port: number, preset: "mobile" | "desktop"): Promise<Scores> {
  const lhr = await lighthouseReport(url, port, preset);
  // A run that could not measure (e.g. NO_FCP on an overloaded machine) scores 0: say so and retry rather than average it in.
  if (lhr.runtimeError) throw new LighthouseRunError(`${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  const { categories, audits } = lhr;
  const ms = (id: string) => `${Math.round(audits[id]?.numericValue ?? 0)}`;
  return {
    performance: Math.round((categories.performance?.score ?? 0) * 100),
    accessibility: Math.round((categories.accessibility?.score ?? 0) * 100),
    metrics: `FCP ${ms("first-contentful-paint")} ms, LCP ${ms("largest-contentful-paint")} ms, TBT ${ms("total-blocking-time")} ms, CLS ${(audits["cumulative-layout-shift"]?.numericValue ?? 0).toFixed(3)}`,
    failedA11y: (categories.accessibility?.auditRefs ?? [])
      .map((ref) => audits[ref.id])
      .filter((a) => a && a.scoreDisplayMode === "binary" && a.score === 0)
      .map((a) => a!.id),
  };
}

/** Where each page's content is, for time to content: a selector that appears, or a text. */
const CONTENT_PAGES: { path: string; signedIn: boolean; selector?: string; text?: string }[] = [
  { path: "/", signedIn: false, selector: "main h1" },
  { path: "/assistants", signedIn: true, selector: "[data-testid=assistant-row]" },
  { path: "/tools", signedIn: true, selector: "[data-testid=tool-row]" },
  { path: "/settings", signedIn: true, text: "No key stored yet." },
];

/** A signed-in browser state with 10 assistants and 10 tools, made through the API. */
async function signedInState(browser: Browser, baseUrl: string) {
  const context = await browser.newContext();
  const { request } = context;
  await signUp(requestPost(request, baseUrl), newAccount("Bench User", "bench"));
  for (let i = 1; i <= 10; i++) {
    await request.post(`${baseUrl}/api/tools`, { data: { name: `Tool ${i}`, type: "API", http_method: "GET", parameter_format: "standard", end_point_url: `https://example.com/t${i}` } });
    await request.post(`${baseUrl}/api/assistants`, { data: { name: `Assistant ${i}`, description: "Answers the front desk line" } });
  }
  const state = await context.storageState();
  await context.close();
  return state;
}

/** Milliseconds from navigation start until the page's content is in the DOM, on a cold cache. */
async function timeToContent(browser: Browser, url: string, target: (typeof CONTENT_PAGES)[number], storageState?: Awaited<ReturnType<typeof signedInState>>) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, storageState });
  try {
    const page = await context.newPage();
    await page.addInitScript(({ selector, text }) => {
      const w = window as unknown as { __contentAt: number | null };
      w.__contentAt = null;
      const observer = new MutationObserver(() => {
        const found = selector ? document.querySelector(selector) : document.body?.innerText.includes(text ?? "");
        if (!found || w.__contentAt !== null) return;
        w.__contentAt = performance.now();
        observer.disconnect();
      });
      observer.observe(document, { childList: true, subtree: true, characterData: true });
    }, { selector: target.selector, text: target.text });
    await page.goto(url);
    await page.waitForFunction(() => (window as unknown as { __contentAt: number | null }).__contentAt !== null, undefined, { timeout: 30_000 });
    return await page.evaluate(() => (window as unknown as { __contentAt: number }).__contentAt);
  } finally {
    await context.close();
  }
}

async function contentTimes(baseUrl: string) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  try {
    const state = await signedInState(browser, baseUrl);
    console.log(`\nTime to content, cold load, ${runs} run(s) each (ms from navigation start)`);
    console.log(`${"page".padEnd(12)}  ${"median".padStart(6)}  ${"fastest".padStart(7)}`);
    for (const target of CONTENT_PAGES) {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) times.push(await timeToContent(browser, baseUrl + target.path, target, target.signedIn ? state : undefined));
      console.log(`${target.path.padEnd(12)}  ${String(Math.round(median(times))).padStart(6)}  ${String(Math.round(Math.min(...times))).padStart(7)}`);
    }
    return state;
  } finally {
    await browser.close();
  }
}

async function axeCounts(baseUrl: string, state: Awaited<ReturnType<typeof signedInState>>) {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  const impacts = ["critical", "serious", "moderate", "minor"] as const;
  const totals = { critical: 0, serious: 0, moderate: 0, minor: 0 };
  try {
    console.log(`\naxe (WCAG 2.1 A/AA + best practice): violations by impact`);
    console.log(`${"page".padEnd(32)}  ${impacts.map((i) => i.padStart(8)).join("  ")}`);
    for (const [pages, storageState] of [[SIGNED_OUT_PAGES, undefined], [SIGNED_IN_PAGES, state]] as const) {
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, storageState });
      const page = await context.newPage();
      for (const path of pages) {
        await page.goto(baseUrl + path);
        await settle(page);
        const found = await axeViolations(page);
        const counts = impacts.map((impact) => found.filter((f) => f.impact === impact).length);
        impacts.forEach((impact, i) => (totals[impact] += counts[i]!));
        console.log(`${(storageState ? "(signed in) " : "") + path}`.padEnd(32) + "  " + counts.map((c) => String(c).padStart(8)).join("  "));
        if (verbose) for (const f of found) console.log(`    ${f.impact} ${f.id}: ${f.help}`);
      }
      await context.close();
    }
    console.log(`${"total".padEnd(32)}  ${impacts.map((i) => String(totals[i]).padStart(8)).join("  ")}`);
  } finally {
    await browser.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kb = (value: number) => value.toFixed(1);

async function main() {
  buildIfNeeded();
  if (!skipLighthouse) installLighthouseIfNeeded();
  const server = await startServer();
  let chrome: Awaited<ReturnType<typeof launchDebuggableChromium>> | null = null;
  try {
    const rows: string[][] = [];
    const notes: string[] = [];
    const state = await contentTimes(server.url);
    if (!skipAxe) await axeCounts(server.url, state);
    if (!skipLighthouse) chrome = await launchDebuggableChromium();
    for (const path of PAGES) {
      const transfer = await measureTransfer(server.url, path);
      const row = [path, kb(transfer.jsKb), kb(transfer.cssKb), String(transfer.files.length)];
      if (verbose) for (const f of [...transfer.files].sort((a, b) => b.gzipKb - a.gzipKb)) console.log(`${path}  ${kb(f.gzipKb).padStart(6)} KB  ${f.url}`);
      if (chrome) {
        for (const preset of ["mobile", "desktop"] as const) {
          const results: Scores[] = [];
          for (let i = 0; i < runs; i++) results.push(await measureScores(server.url + path, chrome.port, preset));
          row.push(String(median(results.map((r) => r.performance))), String(median(results.map((r) => r.accessibility))));
          notes.push(`${path} ${preset}: ${results.map((r) => r.metrics).join(" | ")}`);
          const failed = [...new Set(results.flatMap((r) => r.failedA11y))];
          if (failed.length) notes.push(`${path} ${preset}: failed accessibility audits: ${failed.join(", ")}`);
        }
      }
      rows.push(row);
    }

    const header = ["page", "JS gzip KB", "CSS gzip KB", "files"];
    if (chrome) header.push("perf mobile", "a11y mobile", "perf desktop", "a11y desktop");
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
    const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
    console.log(`\nMarketing pages (${webRoot})${chrome ? `, Lighthouse median of ${runs} run(s)` : ""}`);
    console.log(line(header));
    console.log(widths.map((w) => "-".repeat(w)).join("  "));
    rows.forEach((r) => console.log(line(r)));
    console.log(`\nAim: JS for / <= ${AIM.landingJsKb} KB gzipped; performance and accessibility >= ${AIM.score}.`);
    for (const note of notes) console.log(`  ${note}`);
  } finally {
    if (chrome) {
      const exited = new Promise((done) => chrome!.process.once("exit", done));
      chrome.process.kill("SIGTERM");
      await exited;
      rmSync(chrome.userDataDir, { recursive: true, force: true, maxRetries: 5 });
    }
    await server.stop();
  }
}

await main();
