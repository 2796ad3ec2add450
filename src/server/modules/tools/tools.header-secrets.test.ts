import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordedRequest, ToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { startToolUpstream } from "../../../../tests/fakes/tool-upstream.ts";
import { as, buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import type { Tool, ToolExecutionResponse } from "../../../shared/tools.ts";
import type { Db } from "../../db/client.ts";
import { tools } from "../../db/schema.ts";
import { createSecretBox } from "../../secrets/crypto.ts";
import { sealLegacyToolHeaders } from "./tool-secrets.ts";

/** Tool header values are secrets — sealed at rest, masked on the wire, never logged. */

const SECRET = "hk-live-0123456789-SECRET-wxyz";
let upstream: ToolUpstream;
let app: TestApp;
let db: Db;
let user: Awaited<ReturnType<typeof signUpAndLogIn>>;
const logLines: string[] = [];

beforeAll(async () => {
  upstream = await startToolUpstream();
  ({ app, db } = await buildTestApp({
    config: { TOOL_ALLOWED_HOSTS: "127.0.0.1", LOG_LEVEL: "info" },
    deps: { logStream: { write: (line: string) => void logLines.push(line) } },
  }));
  user = await signUpAndLogIn(app);
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

const call = (method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) => as(app, user).request(method, url, payload);

/** POST /api/tools: a tool on the upstream's echo sending `headers`. */
const postTool = (name: string, headers: Record<string, string>) =>
  call("POST", "/api/tools", { name, type: "API", http_method: "GET", parameter_format: "standard", end_point_url: `${upstream.origin}/echo`, http_headers: headers });

async function createTool(headers: Record<string, string>): Promise<Tool> {
  const res = await postTool("Secret headers", headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function headersSent(id: string) {
  const res = await call("POST", `/api/tools/${id}/execute`, { parameters: {} });
  expect(res.statusCode, res.body).toBe(200);
  return ((res.json() as ToolExecutionResponse).data as RecordedRequest).headers;
}

describe("tool header values", () => {
  it("are sealed at rest and returned masked, names visible, yet sent in clear to the endpoint", async () => {
    const tool = await createTool({ "X-Api-Key": SECRET, "X-Tenant": "acme" });
    expect(tool.http_headers).toEqual({ "X-Api-Key": "••••wxyz", "X-Tenant": "••••" });
    for (const res of [await call("GET", `/api/tools/${tool.id}`), await call("GET", "/api/tools")]) {
      expect(res.body).not.toContain(SECRET);
      expect(res.body).not.toContain("acme");
    }
    const [row] = await db.select().from(tools).where(eq(tools.id, tool.id));
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(JSON.stringify(row)).not.toContain("acme");
    expect(await headersSent(tool.id)).toMatchObject({ "x-api-key": SECRET, "x-tenant": "acme" });
  });

  it("are kept on edit when sent back masked, replaced when changed, dropped when removed", async () => {
    const tool = await createTool({ "X-Api-Key": SECRET, "X-Tenant": "acme", "X-Old": "bye" });
    const res = await call("PATCH", `/api/tools/${tool.id}`, {
      name: "Renamed",
      http_headers: { "X-Api-Key": "••••wxyz", "X-Tenant": "globex", "X-New": "hello" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((res.json() as Tool).http_headers).toEqual({ "X-Api-Key": "••••wxyz", "X-Tenant": "••••", "X-New": "••••" });
    const sent = await headersSent(tool.id);
    expect(sent).toMatchObject({ "x-api-key": SECRET, "x-tenant": "globex", "x-new": "hello" });
    expect(sent["x-old"]).toBeUndefined();
    // The form sends every field back; an edit of something else leaves the headers as they were.
    const again = await call("PATCH", `/api/tools/${tool.id}`, { description: "x", http_headers: (res.json() as Tool).http_headers });
    expect(again.statusCode).toBe(200);
    expect(await headersSent(tool.id)).toMatchObject({ "x-api-key": SECRET, "x-tenant": "globex" });
  });

  it("refuses a mask moved to a header it does not belong to, and stores nothing", async () => {
    const tool = await createTool({ "X-Api-Key": SECRET });
    const res = await call("PATCH", `/api/tools/${tool.id}`, { http_headers: { "X-Other-Key": "••••wxyz" } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/X-Other-Key: enter its value/);
    expect(await headersSent(tool.id)).toMatchObject({ "x-api-key": SECRET });
  });

  it("of rows written in clear before encryption keep working, and are sealed at start", async () => {
    const [legacy] = await db
      .insert(tools)
      .values({
        organizationId: user.organizationId,
        name: "Legacy",
        type: "API",
        httpMethod: "GET",
        parameterFormat: "standard",
        endPointUrl: `${upstream.origin}/echo`,
        httpHeaders: { "X-Api-Key": SECRET },
      })
      .returning();
    const id = legacy!.id;
    expect((await call("GET", `/api/tools/${id}`)).json().http_headers).toEqual({ "X-Api-Key": "••••wxyz" });
    expect(await headersSent(id)).toMatchObject({ "x-api-key": SECRET });

    expect(await sealLegacyToolHeaders(db, createSecretBox(app.ctx.config.appSecret))).toBeGreaterThanOrEqual(1);
    const [row] = await db.select().from(tools).where(eq(tools.id, id));
    expect(JSON.stringify(row)).not.toContain(SECRET);
    expect(row!.updatedAt.getTime()).toBe(legacy!.updatedAt.getTime());
    expect(await headersSent(id)).toMatchObject({ "x-api-key": SECRET });
    expect(await sealLegacyToolHeaders(db, createSecretBox(app.ctx.config.appSecret))).toBe(0);
  });

  it("never reach the log, nor do a failed query's parameters", async () => {
    const tool = await createTool({ "X-Api-Key": SECRET });
    await headersSent(tool.id);
    // A query that fails in the database: the error handler logs it (500) without its parameters.
    await db.execute("CREATE OR REPLACE FUNCTION refuse_tool() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql");
    await db.execute("CREATE TRIGGER refuse_tool BEFORE INSERT ON tools FOR EACH ROW EXECUTE FUNCTION refuse_tool()");
    const failed = await postTool("Will fail", { "X-Api-Key": "hk-another-SECRET-value-1234" });
    await db.execute("DROP TRIGGER refuse_tool ON tools");
    expect(failed.statusCode).toBe(500);
    const log = logLines.join("");
    expect(log).toContain("request failed");
    expect(log).toContain("Failed query");
    expect(log).not.toContain("hk-another-SECRET-value-1234");
    expect(log).not.toContain("Will fail");
    expect(log).not.toContain(SECRET);
  });
});

describe("after APP_SECRET changed", () => {
  it("still lists the header names but refuses to run the tool until the values are entered again", async () => {
    const tool = await createTool({ "X-Api-Key": SECRET });
    // Sealed under another secret is what a rotated APP_SECRET leaves behind.
    const foreign = createSecretBox("another-secret-0123456789abcdef0123456789").encrypt(JSON.stringify({ "X-Api-Key": SECRET }));
    await db.update(tools).set({ httpHeadersEncrypted: foreign }).where(eq(tools.id, tool.id));
    expect((await call("GET", `/api/tools/${tool.id}`)).json().http_headers).toEqual({ "X-Api-Key": "••••wxyz" });
    const run = await call("POST", `/api/tools/${tool.id}/execute`, { parameters: {} });
    expect(run.statusCode).toBe(400);
    expect(run.json().error).toMatchObject({ code: "tool_headers_unreadable", message: expect.stringMatching(/enter them again/) });
    const keep = await call("PATCH", `/api/tools/${tool.id}`, { http_headers: { "X-Api-Key": "••••wxyz" } });
    expect(keep.statusCode).toBe(400);
    const fixed = await call("PATCH", `/api/tools/${tool.id}`, { http_headers: { "X-Api-Key": "new-value" } });
    expect(fixed.statusCode).toBe(200);
    expect(await headersSent(tool.id)).toMatchObject({ "x-api-key": "new-value" });
  });
});
