import { expect, test } from "./fixtures.ts";

const items = [
  { name: "Assistants", path: "/assistants", heading: "Assistants" },
  { name: "Phone Numbers", path: "/phone-numbers", heading: "Phone Numbers" },
  { name: "Calls", path: "/calls", heading: "Calls" },
  { name: "Campaigns", path: "/campaigns", heading: "Campaigns" },
  { name: "Live", path: "/live", heading: "Live" },
  { name: "Tools", path: "/tools", heading: "Tools" },
  { name: "Settings", path: "/settings", heading: "Account Settings" },
];

test("every sidebar item leads to its page and is highlighted there", async ({ page, user }) => {
  await page.goto("/assistants");
  const sidebar = page.getByTestId("sidebar");
  await expect(sidebar.getByText("Switchboard")).toBeVisible();
  await expect(sidebar.getByText(user.name, { exact: true })).toBeVisible();
  // The header names the organisation the user works in (their own team, made at sign-up).
  await expect(sidebar.getByTestId("current-organization")).toHaveText(`${user.name}'s team`);
  const links = sidebar.getByRole("link");
  await expect(links.filter({ hasText: /^(Assistants|Phone Numbers|Calls|Campaigns|Live|Tools|Settings)$/ })).toHaveText(items.map((i) => i.name));
  for (const item of items) {
    await sidebar.getByRole("link", { name: item.name }).click();
    await expect(page).toHaveURL(new RegExp(`${item.path}$`));
    await expect(page.getByRole("heading", { name: item.heading, level: 1 })).toBeVisible();
    await expect(sidebar.getByRole("link", { name: item.name })).toHaveAttribute("data-active", "true");
    for (const other of items.filter((i) => i !== item)) {
      await expect(sidebar.getByRole("link", { name: other.name })).not.toHaveAttribute("data-active", "true");
    }
  }
});

test("Ctrl+B collapses the sidebar to icons and the choice survives a reload", async ({ page, user: _user }) => {
  await page.goto("/calls");
  const sidebar = page.getByTestId("sidebar");
  await expect(sidebar).toHaveAttribute("data-state", "expanded");
  await expect(sidebar.locator("[data-slot=sidebar-container]")).toHaveCSS("width", "256px");
  await page.keyboard.press("Control+b");
  await expect(sidebar).toHaveAttribute("data-state", "collapsed");
  await expect(sidebar.locator("[data-slot=sidebar-container]")).toHaveCSS("width", "48px");
  const cookie = (await page.context().cookies()).find((c) => c.name === "sidebar:state");
  expect(cookie?.value).toBe("false");
  expect(cookie!.expires * 1000 - Date.now()).toBeGreaterThan(6.9 * 24 * 3600 * 1000);
  await page.reload();
  await expect(page.getByTestId("sidebar")).toHaveAttribute("data-state", "collapsed");
  await page.keyboard.press("Meta+b");
  await expect(page.getByTestId("sidebar")).toHaveAttribute("data-state", "expanded");
});

test("below 768 px the sidebar is a drawer", async ({ page, user: _user }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await page.goto("/assistants");
  await expect(page.getByTestId("sidebar")).toHaveCount(0);
  await page.getByRole("button", { name: /toggle sidebar/i }).click();
  const drawer = page.getByRole("dialog", { name: "Switchboard navigation" });
  await expect(drawer).toBeVisible();
  await expect(drawer).toHaveCSS("width", "288px");
  await drawer.getByRole("link", { name: "Tools" }).click();
  await expect(page).toHaveURL(/\/tools$/);
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
});
