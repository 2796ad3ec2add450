import { expect, expectToast, test } from "./fixtures.ts";
import { fillSignUpForm } from "./sign-up.helpers.ts";

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("sign up shows each validation message, then creates the account, signed in, and opens the app", async ({ page }) => {
      await page.goto("/signup");
      await page.getByRole("button", { name: "Create Account" }).click();
      for (const message of ["First name is required", "Last name is required", "Please enter a valid email address", "Password must be at least 6 characters"]) {
        await expect(page.getByText(message, { exact: true })).toBeVisible();
      }
      await page.getByLabel("First name").fill("Fox");
      await expect(page.getByText("First name is required")).toHaveCount(0); // re-validated on change
      await page.getByLabel("Last name").fill("Mulder");
      const email = `mulder-${width}-${Date.now()}@example.com`;
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password", { exact: true }).fill("trustno1");
      await page.getByLabel("Confirm password").fill("trustno2");
      await page.getByRole("button", { name: "Create Account" }).click();
      await expect(page.getByText("Passwords don't match")).toBeVisible();
      await page.getByLabel("Confirm password").fill("trustno1");
      await page.getByRole("button", { name: "Create Account" }).click();
      await expectToast(page, "Your account has been created. You are signed in.");
      await expect(page).toHaveURL(/\/assistants$/);
      await expect(page.getByRole("heading", { name: "Assistants" })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

      // The same address again, signed out: the server's reason in the Sign Up Failed toast.
      await page.context().clearCookies();
      await page.goto("/signup");
      await fillSignUpForm(page, { firstName: "Fox", lastName: "Mulder", email, password: "trustno1" });
      await page.getByRole("button", { name: "Create Account" }).click();
      await expectToast(page, "Sign Up Failed");
      await expectToast(page, /already exists/i);
    });
  });
}

test("login: validation, wrong password, success, guarded routes and log out", async ({ page, user }) => {
  await page.context().clearCookies();
  await page.goto("/assistants");
  await expect(page).toHaveURL(/\/login$/);

  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page.getByText("Please enter a valid email address.")).toBeVisible();
  await expect(page.getByText("Password must be at least 6 characters.")).toBeVisible();

  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Log In" }).click();
  await expectToast(page, "Login Failed");
  await expectToast(page, /invalid email or password/i);

  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page).toHaveURL(/\/assistants$/);
  await expect(page.getByRole("heading", { name: "Assistants" })).toBeVisible();

  await page.goto("/login");
  await expect(page).toHaveURL(/\/assistants$/);
  await page.goto("/signup");
  await expect(page).toHaveURL(/\/assistants$/);

  await page.getByRole("button", { name: "Log out" }).click();
  await expect(page).toHaveURL(/\/login$/);
  for (const path of ["/assistants", "/phone-numbers", "/calls", "/tools", "/settings"]) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/login$/);
  }
});
