/**
 * The test files that cannot reach a database, found from their imports, for the PostgreSQL pass
 * (`npm run test:pg`) to leave out: it exists to run the database's users on PostgreSQL, and
 * these would only run a second time exactly as in the first pass.
 *
 * A file is kept (not database-free) when anything it imports, at any depth, imports a database
 * driver (pg, PGlite, a drizzle driver) — the test harness and the app's database client do —,
 * or starts a process or a worker (which could open one), or imports what this reading cannot
 * follow (a computed `import()`, `require`, a path that does not resolve). Only what it cannot
 * reach is left out, so a file that starts using the database is run again without anyone
 * editing this list; type-only imports are erased at run time and do not count.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const DRIVERS = [/^pg$/, /^postgres$/, /^@electric-sql\/pglite/, /^drizzle-orm\/(?!sql|pg-core)/];
const STARTS_OTHERS = /["'](?:node:)?(?:child_process|worker_threads|cluster)["']/;
const UNFOLLOWABLE = /\bimport\s*\(\s*[^"'`\s]|\brequire\s*\(/;
// `import … from "x"`, `export … from "x"` (not `import type`), `import "x"`, `import("x")`.
const IMPORTS = /(?:^|[;\n])\s*(?:import|export)\s+(?!type\s)[^;]*?\sfrom\s*["']([^"']+)["']|(?:^|[;\n])\s*import\s*["']([^"']+)["']|\bimport\s*\(\s*["'`]([^"'`$]+)["'`]\s*\)/g;
const ALIASES: Record<string, string> = { "@/": "src/web/", "@shared/": "src/shared/" };

function resolveImport(root: string, from: string, spec: string): string | null {
  const alias = Object.keys(ALIASES).find((prefix) => spec.startsWith(prefix));
  const base = alias ? join(root, ALIASES[alias]!, spec.slice(alias.length)) : resolve(dirname(from), spec);
  const candidates = [base, base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"), `${base}.ts`, `${base}.tsx`, join(base, "index.ts")];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/** A file as this reading sees it: whether it reaches a database itself, and the files it imports. */
type Node = { direct: boolean; imports: string[] };

function read(root: string, file: string): Node {
  const text = readFileSync(file, "utf8");
  let direct = STARTS_OTHERS.test(text) || UNFOLLOWABLE.test(text);
  const imports: string[] = [];
  for (const match of text.matchAll(IMPORTS)) {
    const spec = (match[1] ?? match[2] ?? match[3])!;
    if (spec.startsWith(".") || Object.keys(ALIASES).some((prefix) => spec.startsWith(prefix))) {
      const target = resolveImport(root, file, spec);
      if (target === null) direct = true;
      else imports.push(target);
    } else if (DRIVERS.some((driver) => driver.test(spec))) direct = true;
  }
  return { direct, imports };
}

/** Whether anything `file` imports, at any depth (cycles included), reaches a database. */
function mayReachDatabase(root: string, file: string, graph: Map<string, Node>): boolean {
  const visited = new Set<string>([file]);
  const queue = [file];
  while (queue.length > 0) {
    const current = queue.pop()!;
    let node = graph.get(current);
    if (!node) graph.set(current, (node = read(root, current)));
    if (node.direct) return true;
    for (const next of node.imports) {
      if (visited.has(next)) continue;
      visited.add(next);
      queue.push(next);
    }
  }
  return false;
}

/** The `*.test.ts` files under `folders` (relative to `root`) that cannot reach a database, relative to `root`. */
export function databaseFreeTestFiles(root: string, folders: string[]): string[] {
  const graph = new Map<string, Node>();
  return folders
    .flatMap((folder) => readdirSync(join(root, folder), { recursive: true, encoding: "utf8" }).map((f) => join(root, folder, f)))
    .filter((file) => file.endsWith(".test.ts") && !file.includes("node_modules"))
    .filter((file) => !mayReachDatabase(root, file, graph))
    .map((file) => relative(root, file))
    .sort();
}
