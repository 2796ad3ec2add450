import { expect, test } from "./fixtures.ts";

test("an unknown path shows the not-found page and logs the path", async ({ page }) => {
  const logged: string[] = [];
  page.on("console", (msg) => logged.push(msg.text()));
  await page.goto("/no/such/page");
  await expect(page.getByRole("heading", { name: "404" })).toBeVisible();
  await expect(page.getByText("Oops! Page not found")).toBeVisible();
  expect(logged.some((line) => line.includes("/no/such/page"))).toBe(true);
  await page.getByRole("link", { name: "Return to Home" }).click();
  await expect(page).toHaveURL(/\/$/);
});
