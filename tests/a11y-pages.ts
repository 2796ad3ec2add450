/**
 * The pages the accessibility check visits (e2e/accessibility.spec.ts asserts, `npm run bench:web`
 * reports), and one axe run over the page in front of the browser.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Page } from "@playwright/test";

import { VISITOR_PAGE_PATHS } from "../src/shared/page-paths.ts";

/**
 * Every page a visitor can reach (the server's own list, so a new page is checked without being
 * added here), one page behind each slug, the reset screen with a token, and the not-found page.
 */
export const SIGNED_OUT_PAGES = [
  ...VISITOR_PAGE_PATHS,
  "/industries/healthcare",
  "/use-cases/faqs",
  "/product/agent-studio",
  "/reset-password?token=example",
  "/no-such-page",
];

/** The app pages, and the panels opened from them (a panel is a page of its own to a screen reader). */
export const SIGNED_IN_PAGES = ["/assistants", "/phone-numbers", "/calls", "/campaigns", "/live", "/tools", "/settings"];

/** The `[data-ready]`-free way to know a page has settled: its main heading is on screen. */
export async function settle(page: Page) {
  await page.getByRole("heading", { level: 1 }).first().waitFor({ state: "visible" });
  // Let entry animations finish so axe measures the final colours.
  await page.waitForTimeout(400);
}

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Axe's WCAG 2.x A/AA rules; every violation with its impact. Only violations are read, so only
 * they are worked out in full (`resultTypes`: axe stops at one node of the passing and
 * inapplicable results instead of a selector for every element it checked).
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    .options({ resultTypes: ["violations"] })
    .analyze();
  return results.violations.map((v) => ({ id: v.id, impact: v.impact ?? "unknown", help: v.help, targets: v.nodes.map((n) => n.target.join(" ")) }));
}

export const isSerious = (f: AxeFinding) => f.impact === "serious" || f.impact === "critical";
