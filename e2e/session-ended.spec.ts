import { SESSION_ENDED_CLOSE } from "../src/shared/auth.ts";
import { expect, test } from "./fixtures.ts";

test("the live board's session ends elsewhere: the page goes to Log in and says why, instead of reconnecting", async ({ page, user: _user }) => {
  await page.goto("/live");
  await expect(page.getByTestId("board-connection")).toHaveText("Live");

  // The same session signed out from another tab: the server closes the board's socket with 4401.
  const signedOut = await page.evaluate(async () => (await fetch("/api/auth/sign-out", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status);
  expect(signedOut).toBe(200);

  await expect(page).toHaveURL(/\/login$/, { timeout: 10_000 });
  await expect(page.getByRole("alert").filter({ hasText: SESSION_ENDED_CLOSE.reason })).toBeVisible();
  await expect(page.getByTestId("board-connection")).toHaveCount(0);
});
