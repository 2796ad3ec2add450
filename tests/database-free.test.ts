/**
 * The PostgreSQL pass leaves out only files that cannot reach a database: one that reaches a
 * driver at any depth (through a cycle too), starts a process, or imports what cannot be followed
 * is kept.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { databaseFreeTestFiles } from "./database-free.ts";

function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "switchboard-database-free-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

it("leaves out only the test files whose imports never reach a database", () => {
  const root = project({
    "src/db.ts": 'import pg from "pg";\nexport const open = () => new pg.Client();\n',
    "src/a.ts": 'import { b } from "./b.js";\nexport const a = () => b();\n',
    "src/b.ts": 'import { a } from "./a.ts";\nimport { open } from "./db.ts";\nexport const b = () => (a, open());\n',
    "src/pure.ts": 'import type { Client } from "pg";\nexport const pure = (c?: Client) => c;\n',
    "src/cycle-only.ts": 'import { pure } from "./pure.ts";\nexport { pure };\n',
    "tests/through-cycle.test.ts": 'import { a } from "../src/a.ts";\n',
    "tests/multi-line.test.ts": 'import {\n  open,\n} from "../src/db.ts";\n',
    "tests/driver.test.ts": 'import { PGlite } from "@electric-sql/pglite";\n',
    "tests/process.test.ts": 'import { spawn } from "node:child_process";\n',
    "tests/computed.test.ts": 'const name = "../src/db.ts";\nawait import(name);\n',
    "tests/missing.test.ts": 'import { x } from "../src/nowhere.ts";\n',
    "tests/pure.test.ts": 'import { pure } from "../src/cycle-only.ts";\nimport { expect } from "vitest";\nconst text = \'import pg from "pg"\';\n',
  });
  expect(databaseFreeTestFiles(root, ["tests"])).toEqual(["tests/pure.test.ts"]);
});
