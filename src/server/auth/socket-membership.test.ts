import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../tests/fakes/fake-realtime.ts";
import { openBoard, openCall } from "../../../tests/fakes/live-supervisor.ts";
import { createAssistant, openLiveSocket, sessionIdFor, startLiveApp, type LiveApp } from "../../../tests/fakes/realtime-app.ts";
import { as, buildTestApp, freshDatabase, signUpAndLogIn, type TestApp } from "../../../tests/harness.ts";
import { joinAs } from "../../../tests/team.ts";
import { SESSION_ENDED_CLOSE } from "../../shared/auth.ts";
import type { Database } from "../db/client.ts";

/**
 * A member's live sockets follow their membership: removed, or demoted below what a socket
 * needs, on another instance (a second app on the same database), their board and watched call
 * close with 4401 at the next re-check; a member who keeps the role keeps them.
 */
let fake: FakeRealtime;
let database: Database;
let live: LiveApp;
let other: TestApp;
let base: string;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-membership" });
  database = await freshDatabase();
  live = await startLiveApp(fake, {}, { database });
  ({ app: other } = await buildTestApp({ deps: { database } }));
  base = `ws://127.0.0.1:${(live.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await live.app.close();
  await other.close();
  await database.close();
  await fake.close();
});

const CLOSE_WITHIN_MS = 6000;

describe("live sockets and membership", () => {
  it("removing a supervisor or demoting one to viewer on another instance closes their sockets; another keeps theirs", { timeout: 60_000 }, async () => {
    fake.script = {};
    const owner = await signUpAndLogIn(live.app, "Owen Owner");
    expect((await as(live.app, owner).put("/api/credentials/openai_api_key", { value: fake.apiKey })).statusCode).toBe(200);
    const assistant = await createAssistant(live.app, owner);
    const browser = await openLiveSocket(live, owner, await sessionIdFor(live.app, owner, assistant.id));
    await browser.until(() => browser.of("started").length > 0, "started");
    const callId = browser.of("started")[0]!.callId!;

    const removed = await joinAs(live.app, owner, "supervisor", "Rae Removed");
    const demoted = await joinAs(live.app, owner, "supervisor", "Dee Demoted");
    const kept = await joinAs(live.app, owner, "builder", "Kay Kept");
    const boards = await Promise.all([removed, demoted, kept].map((who) => openBoard(base, { cookie: who.cookie })));
    for (const board of boards) expect((await board.next("calls")).calls.map((c) => c.callId)).toContain(callId);
    const watcher = await openCall(base, callId, { cookie: removed.cookie });
    await watcher.next("watching");

    expect((await as(other, owner).delete(`/api/team/members/${removed.userId}`)).statusCode).toBe(204);
    expect((await as(other, owner).patch(`/api/team/members/${demoted.userId}`, { role: "viewer" })).statusCode).toBe(204);

    await boards[0]!.untilClosed(CLOSE_WITHIN_MS);
    await watcher.untilClosed(CLOSE_WITHIN_MS);
    await boards[1]!.untilClosed(CLOSE_WITHIN_MS);
    expect(boards[0]!.closed).toEqual(SESSION_ENDED_CLOSE);
    expect(watcher.closed).toEqual(SESSION_ENDED_CLOSE);
    expect(boards[1]!.closed).toEqual(SESSION_ENDED_CLOSE);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(boards[2]!.closed).toBeNull();
    expect(browser.closed).toBeNull();
    boards[2]!.close();
    browser.end();
  });
});
