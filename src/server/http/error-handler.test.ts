import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { as, buildTestApp, signUpAndLogIn, type TestApp } from "../../../tests/harness.ts";
import type { Db } from "../db/client.ts";

/**
 * The 5xx branch: a failure nobody planned for (here a real query against a table that is gone)
 * answers 500 with the generic text, and its detail goes to the log, never to the client.
 */

const MARKER = "Ward-7731-private-name";
let app: TestApp;
let db: Db;
const logLines: string[] = [];

beforeAll(async () => {
  ({ app, db } = await buildTestApp({ config: { LOG_LEVEL: "info" }, deps: { logStream: { write: (line: string) => void logLines.push(line) } } }));
});
afterAll(async () => {
  await app.close();
});

describe("an unexpected failure", () => {
  it("answers 500 with the generic message, leaks nothing, and logs the cause without the user's data", async () => {
    const ada = await signUpAndLogIn(app);
    // The insert that follows fails inside the driver: an error no route maps to a 4xx.
    await db.execute(sql`DROP TABLE assistants CASCADE`);

    const res = await as(app, ada).post("/api/assistants", { name: MARKER });

    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: "internal_error", message: "Something went wrong on our side. Please try again." } });
    for (const internal of [MARKER, "assistants", "insert", "stack", "relation"]) expect(res.body).not.toContain(internal);

    const failures = logLines.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { message?: string; query?: string } }).filter((l) => l.msg === "request failed");
    expect(failures).toHaveLength(1);
    expect(failures[0]!.level).toBe(50);
    // The SQL text is kept for the operator; the parameters (what the user typed) are not.
    expect(failures[0]!.err?.query).toMatch(/insert into "assistants"/);
    expect(logLines.join("\n")).not.toContain(MARKER);
  });
});
