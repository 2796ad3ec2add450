import { describe, expect, it } from "vitest";
import { openBoard, openCall } from "../../../tests/fakes/live-supervisor.ts";
import { createAssistant, openLiveSocket, sessionIdFor, type Caller, setUpLiveApp } from "../../../tests/fakes/realtime-app.ts";
import { signUpAndLogIn } from "../../../tests/harness.ts";
import { injectPost } from "../../../tests/sign-up.ts";
import type { SignedUp } from "../../../tests/sign-up.ts";
import { SESSION_ENDED_CLOSE } from "../../shared/auth.ts";

/**
 * Live sockets are checked at the upgrade and then re-checked against the database every few
 * seconds: once their sign-in session ends, each closes with 4401 (and a watcher can no longer
 * act on the call), while the same user's other sessions keep theirs.
 */
const file = setUpLiveApp("sk-socket-sessions");

const CLOSE_WITHIN_MS = 6000;

/** A user with their OpenAI key and an assistant. */
async function owner(): Promise<SignedUp & { assistantId: string }> {
  const who = await signUpAndLogIn(file.live.app);
  const res = await file.live.app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie: who.cookie }, payload: { value: file.fake.apiKey } });
  expect(res.statusCode).toBe(200);
  return { ...who, assistantId: (await createAssistant(file.live.app, who)).id };
}

/** A second sign-in of the same account (another device). */
async function anotherSession(who: SignedUp): Promise<Caller> {
  const login = await injectPost(file.live.app)("/api/auth/sign-in/email", { email: who.email, password: who.password });
  expect(login.status).toBe(200);
  return { cookie: login.cookies.join("; "), userId: who.userId, organizationId: who.organizationId };
}

/** A test call of `who` in progress, with a watcher on it and a board. */
async function callWithSockets(who: SignedUp & { assistantId: string }, session: Caller) {
  const browser = await openLiveSocket(file.live, session, await sessionIdFor(file.live.app, session, who.assistantId));
  await browser.until(() => browser.of("started").length > 0, "started");
  const callId = browser.of("started")[0]!.callId!;
  const board = await openBoard(file.live.wsOrigin, { cookie: session.cookie });
  await board.next("calls");
  const watcher = await openCall(file.live.wsOrigin, callId, { cookie: session.cookie });
  await watcher.next("watching");
  return { browser, board, watcher, callId };
}

describe("live sockets after their session ends", () => {
  it("sign-out closes the board, the watched call and the test call with 4401; the user's other session keeps its board", async () => {
    file.fake.script = {};
    const who = await owner();
    const other = await anotherSession(who);
    const { browser, board, watcher } = await callWithSockets(who, who);
    const kept = await openBoard(file.live.wsOrigin, { cookie: other.cookie });
    await kept.next("calls");

    const out = await file.live.app.inject({ method: "POST", url: "/api/auth/sign-out", headers: { cookie: who.cookie, origin: file.live.app.ctx.config.publicUrl }, payload: {} });
    expect(out.statusCode).toBe(200);

    await board.untilClosed(CLOSE_WITHIN_MS);
    await watcher.untilClosed(CLOSE_WITHIN_MS);
    await browser.until(() => browser.closed !== null, "test call closed", CLOSE_WITHIN_MS);
    expect(board.closed).toEqual(SESSION_ENDED_CLOSE);
    expect(watcher.closed).toEqual(SESSION_ENDED_CLOSE);
    expect(browser.closed).toEqual(SESSION_ENDED_CLOSE);
    // The other device's board is still open and still told of calls.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(kept.closed).toBeNull();
    kept.close();
  });

  it("a password change that signs out other sessions closes their sockets", async () => {
    file.fake.script = {};
    const who = await owner();
    const stolen = await anotherSession(who);
    const { browser, board, watcher } = await callWithSockets(who, stolen);

    const changed = await file.live.app.inject({
      method: "POST",
      url: "/api/account/password",
      headers: { cookie: who.cookie },
      payload: { currentPassword: who.password, newPassword: "a-brand-new-password" },
    });
    expect(changed.statusCode, changed.body).toBe(204);

    await watcher.untilClosed(CLOSE_WITHIN_MS);
    await board.untilClosed(CLOSE_WITHIN_MS);
    expect(watcher.closed).toEqual(SESSION_ENDED_CLOSE);
    expect(board.closed).toEqual(SESSION_ENDED_CLOSE);
    await browser.until(() => browser.closed !== null, "test call closed", CLOSE_WITHIN_MS);
    expect(browser.closed).toEqual(SESSION_ENDED_CLOSE);
  });

  it("deleting the account closes its sockets", async () => {
    file.fake.script = {};
    const who = await owner();
    const board = await openBoard(file.live.wsOrigin, { cookie: who.cookie });
    await board.next("calls");
    const res = await file.live.app.inject({ method: "DELETE", url: "/api/account", headers: { cookie: who.cookie }, payload: { password: who.password } });
    expect(res.statusCode, res.body).toBe(204);
    await board.untilClosed(CLOSE_WITHIN_MS);
    expect(board.closed).toEqual(SESSION_ENDED_CLOSE);
  });
});
