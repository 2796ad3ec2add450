import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { expect, it } from "vitest";
import { buildTestApp } from "../../../tests/harness.ts";
import { ROOT_DIR } from "../paths.ts";

type Lint = { totals: { errors: number }; problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] };

it("lints clean with Redocly's recommended rules: no error, and only the warnings redocly.yaml justifies", async () => {
  const { app } = await buildTestApp();
  const document = (await app.inject({ method: "GET", url: "/api/openapi.json" })).body;
  await app.close();
  const file = join(mkdtempSync(join(tmpdir(), "switchboard-lint-")), "openapi.json");
  writeFileSync(file, document);
  const config = join(ROOT_DIR, "redocly.yaml");
  // The linter exits 1 on an error; its JSON report is read either way.
  const run = await promisify(execFile)(join(ROOT_DIR, "node_modules/.bin/redocly"), ["lint", file, "--config", config, "--format=json"], { maxBuffer: 64 << 20 }).catch(
    (err: { stdout: string }) => err,
  );
  const report = JSON.parse(run.stdout) as Lint;
  const errors = report.problems.filter((p) => p.severity === "error").map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  expect(errors).toEqual([]);
  // A warning stays only with its reason: a comment line just above its rule in redocly.yaml.
  const justified = new Set([...readFileSync(config, "utf8").matchAll(/^ *#.*\n *([a-z0-9.-]+): warn$/gm)].map((m) => m[1]!));
  const unjustified = report.problems.filter((p) => !justified.has(p.ruleId)).map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
  expect(unjustified).toEqual([]);
}, 120_000);
