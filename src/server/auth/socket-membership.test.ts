import { describe, expect, it } from "vitest";
import { openBoard, openCall } from "../../../tests/fakes/live-supervisor.ts";
import { createAssistant, openLiveSocket, sessionIdFor, setUpTwoInstances } from "../../../tests/fakes/realtime-app.ts";
import { as, signUpAndLogIn } from "../../../tests/harness.ts";
import { joinAs } from "../../../tests/team.ts";
import { SESSION_ENDED_CLOSE } from "../../shared/auth.ts";

/**
 * A member's live sockets follow their membership: removed, or demoted below what a socket
 * needs, on another instance (a second app on the same database), their board and watched call
 * close with 4401 at the next re-check; a member who keeps the role keeps them.
 */
const file = setUpTwoInstances("sk-membership");

const CLOSE_WITHIN_MS = 6000;

describe("live sockets and membership", () => {
  it("removing a supervisor or demoting one to viewer on another instance closes their sockets; another keeps theirs", { timeout: 60_000 }, async () => {
    file.fake.script = {};
    const owner = await signUpAndLogIn(file.a.app, "Owen Owner");
    expect((await as(file.a.app, owner).put("/api/credentials/openai_api_key", { value: file.fake.apiKey })).statusCode).toBe(200);
    const assistant = await createAssistant(file.a.app, owner);
    const browser = await openLiveSocket(file.a, owner, await sessionIdFor(file.a.app, owner, assistant.id));
    await browser.until(() => browser.of("started").length > 0, "started");
    const callId = browser.of("started")[0]!.callId!;

    const removed = await joinAs(file.a.app, owner, "supervisor", "Rae Removed");
    const demoted = await joinAs(file.a.app, owner, "supervisor", "Dee Demoted");
    const kept = await joinAs(file.a.app, owner, "builder", "Kay Kept");
    const boards = await Promise.all([removed, demoted, kept].map((who) => openBoard(file.a.wsOrigin, { cookie: who.cookie })));
    for (const board of boards) expect((await board.next("calls")).calls.map((c) => c.callId)).toContain(callId);
    const watcher = await openCall(file.a.wsOrigin, callId, { cookie: removed.cookie });
    await watcher.next("watching");

    expect((await as(file.b.app, owner).delete(`/api/team/members/${removed.userId}`)).statusCode).toBe(204);
    expect((await as(file.b.app, owner).patch(`/api/team/members/${demoted.userId}`, { role: "viewer" })).statusCode).toBe(204);

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
