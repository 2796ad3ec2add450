import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

const VIEWPORTS = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "mobile", width: 375, height: 812 },
] as const;

/** Scrolls and waits two frames, so the scroll listener has run before anything is asserted. */
async function scrollToY(page: Page, y: number) {
  await page.evaluate(
    (top) =>
      new Promise<void>((done) => {
        window.scrollTo(0, top);
        requestAnimationFrame(() => requestAnimationFrame(() => done()));
      }),
    y,
  );
  expect(await page.evaluate(() => window.scrollY)).toBe(y);
}

function failOnPageErrors(page: Page) {
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  return errors;
}

for (const viewport of VIEWPORTS) {
  test.describe(`landing page at ${viewport.width} px`, () => {
    test.use({ viewport: { width: viewport.width, height: viewport.height } });

    test("shows the eight sections with the marketing claims and their links", async ({ page }) => {
      const errors = failOnPageErrors(page);
      await page.goto("/");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Turn your contact center into a command center");
      const sections = page.locator("main > section");
      await expect(sections).toHaveCount(8);
      await expect(sections.nth(0).getByRole("link", { name: "Request a demo" })).toHaveAttribute("href", "/request-a-demo");
      await expect(sections.nth(1).getByTestId("customer-story")).toHaveCount(3);

      const results = sections.nth(2);
      for (const [value, label] of [["75%", "of calls handled"], ["+15 pt", "CSAT increase"], ["$2.4M", "revenue"], ["60%", "cut in seasonal hiring"]]) {
        await expect(results.getByText(value, { exact: true })).toBeVisible();
        await expect(results.getByText(label, { exact: true })).toBeVisible();
      }
      await expect(results.getByText("in 12 languages")).toBeVisible();
      await expect(results.getByRole("link", { name: "Request a demo" })).toHaveAttribute("href", "/request-a-demo");
      await expect(sections.nth(3)).toContainText("hold");

      const how = sections.nth(4);
      await expect(how.getByRole("heading", { level: 2 })).toHaveText("Designed, integrated and deployed in six weeks or less");
      await expect(how.getByRole("heading", { level: 3 })).toHaveText(["Design", "Integrate", "Analyze", "Improve"]);
      await expect(how.getByRole("link", { name: "Learn more" })).toHaveAttribute("href", "/how-it-works");

      await expect(sections.nth(5).getByRole("heading", { level: 3 })).toHaveText(["Security", "Integrations", "Analytics"]);
      await expect(sections.nth(6).getByRole("link", { name: /^Industries/ })).toHaveAttribute("href", "/industries");
      await expect(sections.nth(6).getByRole("link", { name: /^Use Cases/ })).toHaveAttribute("href", "/use-cases");
      await expect(sections.nth(7).getByRole("link", { name: "Request a demo" })).toHaveAttribute("href", "/request-a-demo");

      await sections.nth(7).getByRole("link", { name: "Request a demo" }).click();
      await expect(page).toHaveURL(/\/request-a-demo$/);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Request a demo with our team");
      expect(errors).toEqual([]);
    });

    test("the top bar is transparent at the top and solid black once scrolled past 10 px", async ({ page }) => {
      await page.goto("/");
      const bar = page.getByTestId("marketing-header");
      await expect(bar).toHaveCSS("position", "fixed");
      await expect(bar).toHaveCSS("background-color", "rgba(0, 0, 0, 0)");
      await scrollToY(page, 10);
      await expect(bar).toHaveAttribute("data-solid", "false");
      await expect(bar).toHaveCSS("background-color", "rgba(0, 0, 0, 0)");
      await scrollToY(page, 11);
      await expect(bar).toHaveCSS("background-color", "rgb(0, 0, 0)");
      await expect(bar).toBeInViewport();
      await scrollToY(page, 0);
      await expect(bar).toHaveCSS("background-color", "rgba(0, 0, 0, 0)");
    });

    test("a customer story plays in a modal player and stops when dismissed", async ({ page }) => {
      await page.goto("/");
      const card = page.getByTestId("customer-story").first();
      await card.scrollIntoViewIfNeeded();
      await card.click();
      const dialog = page.getByRole("dialog", { name: "Kestrel Bank" });
      await expect(dialog).toBeVisible();
      const video = dialog.getByTestId("story-video");
      await expect(video).toHaveAttribute("controls", "");
      await expect(video).toHaveAttribute("src", /^\/api\/media\/media\/clip-kestrel-bank\.mp4\?exp=\d+&sig=/);
      // It really plays: time moves on, which needs the signed address to serve the bytes.
      await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.5);
      expect(await video.evaluate((v: HTMLVideoElement) => v.paused)).toBe(false);

      const element = await video.elementHandle();
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
      // Stopped, not merely hidden: paused and rewound (removal alone would not rewind it).
      expect(await element!.evaluate((v: HTMLVideoElement) => ({ paused: v.paused, time: v.currentTime }))).toEqual({ paused: true, time: 0 });

      // Another story opens its own clip, and the close button stops it too.
      await page.getByTestId("customer-story").nth(1).click();
      const second = page.getByRole("dialog", { name: "Aurelia Air" });
      const secondVideo = second.getByTestId("story-video");
      await expect(secondVideo).toHaveAttribute("src", /clip-aurelia-air\.mp4\?/);
      await expect.poll(() => secondVideo.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 15_000 }).toBeGreaterThan(0.5);
      const secondElement = await secondVideo.elementHandle();
      await second.getByRole("button", { name: "Close" }).click();
      await expect(second).toBeHidden();
      expect(await secondElement!.evaluate((v: HTMLVideoElement) => v.paused)).toBe(true);
    });
  });
}

test.describe("navigation at 375 px", () => {
  test.use({ viewport: { width: 375, height: 812 } });

  test("the top bar's links collapse into a slide-out menu that opens and closes", async ({ page }) => {
    await page.goto("/");
    const bar = page.getByTestId("marketing-header");
    await expect(bar.getByRole("link", { name: "Product" })).toBeHidden();
    await expect(bar.getByRole("link", { name: "Login" })).toBeHidden();

    await bar.getByRole("button", { name: "Open menu" }).click();
    const menu = page.getByRole("dialog", { name: "Menu" });
    await expect(menu).toBeVisible();
    await expect(menu.getByRole("navigation", { name: "Mobile" }).getByRole("link")).toHaveText(["Product", "Resources", "Company"]);
    await expect(menu.getByRole("link", { name: "Request a demo" })).toHaveAttribute("href", "/request-a-demo");
    await expect(menu.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/signup");
    await menu.getByRole("button", { name: "Close" }).click();
    await expect(menu).toBeHidden();

    await bar.getByRole("button", { name: "Open menu" }).click();
    await expect(menu).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(menu).toBeHidden();

    // Following a link closes the menu and lands on the page.
    await bar.getByRole("button", { name: "Open menu" }).click();
    await menu.getByRole("link", { name: "Login" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(menu).toBeHidden();
    await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
  });
});

test.describe("navigation at 1440 px", () => {
  test("the top bar shows its links inline and the Login button leads to /login", async ({ page }) => {
    await page.goto("/");
    const bar = page.getByTestId("marketing-header");
    await expect(bar.getByRole("button", { name: "Open menu" })).toBeHidden();
    await expect(bar.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText(["Product", "Resources", "Company"]);
    await expect(bar.getByRole("link", { name: "Sign up" })).toHaveAttribute("href", "/signup");
    await bar.getByRole("link", { name: "Login" }).click();
    await expect(page).toHaveURL(/\/login$/);
    await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
  });

  test("every header and footer link renders a real page", async ({ page }) => {
    // Some forty page loads, each a real page with its own chunk: more than the default minute on a busy machine.
    test.setTimeout(180_000);
    const errors = failOnPageErrors(page);
    await page.goto("/");
    const footer = page.getByTestId("marketing-footer");
    const year = new Date().getFullYear();
    await expect(footer.getByText(`© ${year} Switchboard. All rights reserved.`)).toBeVisible();

    const socials = footer.getByRole("list", { name: "Social media" }).getByRole("link");
    await expect(socials).toHaveCount(3);
    for (const social of await socials.all()) {
      await expect(social).toHaveAttribute("href", /^https:\/\/(www\.)?(linkedin\.com|x\.com|youtube\.com)\//);
      await expect(social).toHaveAttribute("rel", "noopener noreferrer");
      await expect(social).toHaveAttribute("target", "_blank");
      await expect(social).toHaveAttribute("aria-label", /^Switchboard on (LinkedIn|X|YouTube)$/);
    }

    const hrefs = async (scope: ReturnType<Page["getByTestId"]>) =>
      (await scope.locator("a[href^='/']").evaluateAll((links) => links.map((a) => a.getAttribute("href")!))).filter((h) => h !== "/");
    const footerLinks = await hrefs(footer);
    const headerLinks = await hrefs(page.getByTestId("marketing-header"));
    // Every other internal link of the landing page (its sections' calls to action), not a hand-kept list.
    const landingLinks = await hrefs(page.locator("main"));
    expect(landingLinks).toEqual(expect.arrayContaining(["/request-a-demo", "/how-it-works", "/industries", "/use-cases"]));
    // Spec §2's footer list, in full.
    expect(new Set(footerLinks)).toEqual(
      new Set([
        ...["agent-studio", "technology", "integrations", "data-insights", "security", "languages"].map((p) => `/product/${p}`),
        "/pricing",
        ...["consumer-services", "financial-services", "healthcare", "hotels", "insurance", "restaurants", "retail", "telecom", "travel", "utilities"].map((p) => `/industries/${p}`),
        ...["account-management", "authentication", "call-routing", "billing-payments", "booking-reservations", "faqs", "order-management", "troubleshooting"].map((p) => `/use-cases/${p}`),
        "/resources/call-recordings",
        "/blog",
        "/resources/guides",
        "/company/about",
        "/company/press",
        "/contact",
        "/privacy-policy",
      ]),
    );

    // The account pages are the auth screens, not marketing pages.
    const accountPages: Record<string, string> = { "/login": "Log In", "/signup": "Create Account" };
    for (const href of headerLinks.filter((h) => h in accountPages)) {
      await page.goto(href);
      await expect(page.getByRole("button", { name: accountPages[href] })).toBeVisible();
    }

    const linked = new Set([...headerLinks, ...footerLinks, ...landingLinks]);
    // The links the site shows that are meant to answer the not-found page: none. Naming one here
    // is the only way a link may 404; every other link must be a real page.
    const expectedNotFound: string[] = [];
    for (const href of expectedNotFound) expect(linked, `${href} is still linked`).toContain(href);
    for (const href of [...linked].filter((h) => !(h in accountPages) && !expectedNotFound.includes(h))) {
      await page.goto(href);
      const heading = page.getByRole("heading", { level: 1 });
      await expect(heading, `${href} renders a heading`).toBeVisible();
      // A real page, never the not-found page: inside the shared marketing frame.
      await expect(heading, href).not.toHaveText("404");
      await expect(page.getByTestId("marketing-header"), href).toBeVisible();
      await expect(page.getByTestId("marketing-footer"), href).toBeAttached();
      expect(await page.title(), href).toMatch(/Switchboard/);
    }
    // The named ones, and unknown slugs under real sections, are the not-found page.
    for (const href of [...expectedNotFound, "/industries/space-tourism", "/use-cases/nothing", "/product/teleporter"]) {
      await page.goto(href);
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("404");
    }
    expect(errors).toEqual([]);
  });
});
