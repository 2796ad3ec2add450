import type { Page } from "@playwright/test";

/** Fills the Sign Up form (on screen already) as a person would; the caller presses Create Account. */
export async function fillSignUpForm(page: Page, who: { firstName: string; lastName: string; email: string; password: string }) {
  await page.getByLabel("First name").fill(who.firstName);
  await page.getByLabel("Last name").fill(who.lastName);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByLabel("Confirm password").fill(who.password);
}
