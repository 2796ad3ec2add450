import { LIVE_TEXTS } from "../src/shared/live.ts";
import { ROLE_CHANGE_TEXTS } from "../src/shared/roles.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { expect, expectToast, test } from "./fixtures.ts";

/**
 * A member's role changes under an open page: a supervisor watching the live board is made a
 * viewer by the owner. The page learns of it as it learns of a signed-out session (the board's
 * socket is closed), says so, stays signed in, and shows what the new role allows: the board
 * says which role it needs instead of loading forever — as it does for a viewer opening /live.
 */
test("a supervisor made a viewer while on the live board is told, keeps the session, and the board says which role it needs", async ({ page, server, browser, user: _owner }) => {
  test.setTimeout(120_000);
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const member = await signUp(requestPost(context.request, server.url), newAccount("Sam Supervisor", "e2e-"));
    const invited = await page.request.post("/api/team/invitations", { data: { email: member.email, role: "supervisor" } });
    expect(invited.status(), await invited.text()).toBe(201);
    const token = new URL(((await invited.json()) as { url: string }).url).searchParams.get("token");
    expect((await context.request.post("/api/team/invitations/accept", { data: { token } })).status()).toBe(200);

    const sam = await context.newPage();
    await sam.goto("/live");
    await expect(sam.getByTestId("board-connection")).toHaveText("Live");
    await expect(sam.getByRole("link", { name: "Live", exact: true })).toBeVisible();

    const demoted = await page.request.patch(`/api/team/members/${member.userId}`, { data: { role: "viewer" } });
    expect(demoted.status(), await demoted.text()).toBe(204);

    await expectToast(sam, ROLE_CHANGE_TEXTS.changed("viewer"));
    await expect(sam).toHaveURL(/\/live$/);
    await expect(sam.getByTestId("live-needs-role")).toHaveText(LIVE_TEXTS.needsRole("Viewer"));
    await expect(sam.getByRole("link", { name: "Live", exact: true })).toHaveCount(0);

    // Opening /live as a viewer: the reason at once, no endless loading.
    await sam.reload();
    await expect(sam.getByTestId("live-needs-role")).toHaveText(LIVE_TEXTS.needsRole("Viewer"));
    await expect(sam.getByLabel("Loading calls in progress")).toHaveCount(0);
  } finally {
    await context.close();
  }
});
