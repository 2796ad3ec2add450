import { request } from "node:http";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, errorOf, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { calls } from "../../db/schema.ts";
import type { Db } from "../../db/client.ts";

/**
 * What a client of the CSV export sees when the filter is wrong (a JSON 400, nothing streamed)
 * and when the database fails after the first rows went out: the download breaks off (an
 * incomplete chunked body, never one that looks whole), the failure is logged, and the server
 * goes on answering. An unhandled rejection anywhere here fails the test (tests/fail-on-unhandled.ts).
 */
let app: TestApp;
let db: Db;
const logLines: string[] = [];

beforeAll(async () => {
  ({ app, db } = await buildTestApp({ config: { LOG_LEVEL: "warn" }, deps: { logStream: { write: (line) => void logLines.push(line) } } }));
  await app.listen({ host: "127.0.0.1", port: 0 });
});
afterAll(async () => {
  await app?.close();
});

interface Download {
  status: number;
  contentType: string | undefined;
  body: string;
  /** The body ended as HTTP says a complete one ends (the last chunk arrived). */
  complete: boolean;
}

function download(path: string, cookie: string): Promise<Download> {
  const address = app.server.address();
  if (!address || typeof address !== "object") throw new Error("not listening");
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: address.port, path, headers: { cookie } }, (res) => {
      let body = "";
      let settled = false;
      const finish = (complete: boolean) => {
        if (settled) return;
        settled = true;
        resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"], body, complete });
      };
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => finish(res.complete));
      res.on("aborted", () => finish(false));
      res.on("error", () => finish(false));
      res.on("close", () => finish(res.complete));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("GET /api/calls/export.csv", () => {
  it("answers an inverted or empty range with a 400 before any byte of CSV", async () => {
    const ann = await signUpAndLogIn(app);
    for (const range of ["from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z"]) {
      const res = await app.inject({ method: "GET", url: `/api/calls/export.csv?${range}`, headers: { cookie: ann.cookie } });
      expect(res.statusCode).toBe(400);
      expect(res.headers["content-type"]).toContain("application/json");
      expect(errorOf(res)).toMatchObject({ code: "validation_error", message: "from must be before to" });
    }
  });

  it("breaks the download off, logs why and keeps serving when the database fails once the download began", async () => {
    const bo = await signUpAndLogIn(app);
    const call = (start: string) => ({
      organizationId: bo.organizationId,
      startTime: new Date(start),
      endTime: new Date(Date.parse(start) + 30_000),
      cost: 0.01,
      endedReason: "Caller hung up",
      logs: { isTest: false, transcript: [] },
    });
    // A stored cost PostgreSQL cannot read as a number fails the query of the rows, which runs
    // once the header line (after the query of the assistants' field names) is on its way.
    await db.insert(calls).values([
      { ...call("2025-06-01T10:00:00Z"), providerCost: { total: 0.01, lines: [] } },
      { ...call("2025-06-01T09:00:00Z"), providerCost: sql`'{"total": "n/a", "lines": []}'::jsonb` },
    ]);

    const res = await download("/api/calls/export.csv", bo.cookie);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe("text/csv; charset=utf-8");
    const lines = res.body.split("\r\n").filter((l) => l.length > 0);
    expect(lines[0]).toMatch(/^id,start_time,/);
    expect(lines).toHaveLength(1);
    // Not a body that ends as a whole one: a client cannot take the cut file for the full export.
    expect(res.complete).toBe(false);
    await expect.poll(() => logLines.filter((l) => l.includes(`"msg":"calls export failed midway"`)).length).toBe(1);
    // Without the query's parameters, which are users' data.
    expect(logLines.join("\n")).not.toMatch(/"params"|params:/);

    // The same instance answers the next request.
    const after = await app.inject({ method: "GET", url: "/api/assistants", headers: { cookie: bo.cookie } });
    expect(after.statusCode).toBe(200);
  });
});
