import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { demoRequests } from "../src/server/db/schema.ts";
import { DEMO_COUNTRIES } from "../src/shared/demo-requests.ts";
import { expect, expectToast, test } from "./fixtures.ts";

const MESSAGES = [
  "First name is required",
  "Last name is required",
  "Company name is required",
  "Please enter a valid work email",
  "Role is required",
  "Phone number is required",
  "Location is required",
  "Call volume is required",
];

let clientCounter = 0;
// POST /api/demo-requests is rate-limited per client address (the server trusts X-Forwarded-For
// from its proxy): each test speaks from its own address so the suite never trips the limit by accident.
async function asNewClient(page: Page) {
  const address = `198.51.100.${++clientCounter + 10 * test.info().workerIndex}`;
  await page.setExtraHTTPHeaders({ "x-forwarded-for": address });
  return address;
}

// Scoped to the form: the footer's "Company" navigation would otherwise match its label too.
const demoForm = (page: Page) => page.getByRole("form", { name: "Request a demo" });

async function fillValidForm(page: Page, values: { email: string; comments?: string }) {
  await demoForm(page).getByLabel("First name").fill("Priya");
  await demoForm(page).getByLabel("Last name").fill("Raman");
  await demoForm(page).getByLabel("Company").fill("Northwind Energy");
  await demoForm(page).getByLabel("Work email").fill(values.email);
  await demoForm(page).getByLabel("Role").fill("Head of Customer Operations");
  await demoForm(page).getByLabel("Phone number").fill("+1 415 555 0134");
  await demoForm(page).getByLabel("Location").selectOption("Canada");
  await demoForm(page).getByLabel("Yearly call volume").selectOption({ label: "100,000 - 500,000" });
  if (values.comments !== undefined) await demoForm(page).getByLabel("Comments (optional)").fill(values.comments);
}

for (const viewport of [
  { width: 1440, height: 900 },
  { width: 375, height: 812 },
]) {
  test.describe(`Request a demo at ${viewport.width} px`, () => {
    test.use({ viewport });

    test("shows the page's content inside the marketing header and footer", async ({ page }) => {
      await page.goto("/request-a-demo");
      await expect(page.getByRole("heading", { level: 1 })).toHaveText("Request a demo with our team");
      for (const bullet of [
        "See and hear the technology in action",
        "Discuss security, support and customization",
        "Compare with other voice platforms",
        "Talk pricing and timeline",
      ]) {
        await expect(page.getByRole("listitem").filter({ hasText: bullet })).toBeVisible();
      }
      await expect(page.getByRole("link", { name: "Privacy Policy" }).first()).toHaveAttribute("href", "/privacy-policy");
      await expect(page.locator("figure blockquote")).toBeVisible();
      await expect(page.locator("figure figcaption")).toContainText("Director of Contact Center Operations");
      await expect(page.getByTestId("marketing-header")).toBeVisible();
      await expect(page.getByTestId("marketing-footer")).toBeAttached();
      await expect(demoForm(page).getByLabel("Location").locator("option")).toHaveText(["Select a country", ...DEMO_COUNTRIES]);
      const volumes = demoForm(page).getByLabel("Yearly call volume").locator("option");
      await expect(volumes).toHaveCount(7);
      expect(await volumes.evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toEqual([
        "",
        "0-1000",
        "1000-10000",
        "10000-50000",
        "50000-100000",
        "100000-500000",
        "500000+",
      ]);
      await expect(volumes.nth(1)).toHaveText(/per year/);
    });

    test("validates on submit with the spec's messages and re-validates on change", async ({ page }) => {
      await asNewClient(page);
      await page.goto("/request-a-demo");
      let posted = 0;
      page.on("request", (req) => {
        if (req.url().endsWith("/api/demo-requests")) posted++;
      });
      await demoForm(page).getByRole("button", { name: "Request a demo" }).click();
      for (const message of MESSAGES) await expect(page.getByText(message, { exact: true })).toBeVisible();
      await expect(demoForm(page).getByLabel("First name")).toHaveAttribute("aria-invalid", "true");

      await demoForm(page).getByLabel("First name").fill("Priya");
      await expect(page.getByText("First name is required")).toHaveCount(0);
      await expect(demoForm(page).getByLabel("First name")).not.toHaveAttribute("aria-invalid", "true");
      await demoForm(page).getByLabel("Work email").fill("priya@");
      await expect(page.getByText("Please enter a valid work email")).toBeVisible();
      await demoForm(page).getByLabel("Work email").fill("priya@northwind.example");
      await expect(page.getByText("Please enter a valid work email")).toHaveCount(0);
      await demoForm(page).getByLabel("Location").selectOption("Japan");
      await expect(page.getByText("Location is required")).toHaveCount(0);
      await demoForm(page).getByLabel("Yearly call volume").selectOption("500000+");
      await expect(page.getByText("Call volume is required")).toHaveCount(0);
      for (const message of ["Last name is required", "Company name is required", "Role is required", "Phone number is required"]) {
        await expect(page.getByText(message, { exact: true })).toBeVisible();
      }
      await demoForm(page).getByRole("button", { name: "Request a demo" }).click();
      await expect(page.getByText("Last name is required")).toBeVisible();
      expect(posted).toBe(0);
    });

    test("a valid request is stored, confirmed with a toast, and the form is reset", async ({ page, server }) => {
      await asNewClient(page);
      await page.goto("/request-a-demo");
      const email = `priya-${randomBytes(4).toString("hex")}@northwind.example`;
      const withComments = viewport.width > 800;
      await fillValidForm(page, { email, comments: withComments ? "Outage calls in three languages." : undefined });
      await demoForm(page).getByRole("button", { name: "Request a demo" }).click();
      await expectToast(page, "Demo request submitted");
      await expectToast(page, "Thank you for your interest. Our team will contact you soon.");

      for (const label of ["First name", "Last name", "Company", "Work email", "Role", "Phone number", "Comments (optional)"]) {
        await expect(demoForm(page).getByLabel(label, { exact: true })).toHaveValue("");
      }
      await expect(demoForm(page).getByLabel("Location")).toHaveValue("");
      await expect(demoForm(page).getByLabel("Yearly call volume")).toHaveValue("");

      const rows = await server.db.select().from(demoRequests).where(eq(demoRequests.workEmail, email));
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        firstName: "Priya",
        lastName: "Raman",
        company: "Northwind Energy",
        role: "Head of Customer Operations",
        phoneNumber: "+1 415 555 0134",
        location: "Canada",
        yearlyCallVolume: "100000-500000",
        comments: withComments ? "Outage calls in three languages." : null,
      });
    });
  });
}

test("a refused request shows the Error toast with the server's message and keeps the form", async ({ page, server }) => {
  const address = await asNewClient(page);
  // Use up this address's allowance directly, so the browser's submission is the one refused.
  for (let i = 0; i < 5; i++) {
    const res = await page.request.post(`${server.url}/api/demo-requests`, {
      headers: { "x-forwarded-for": address },
      data: { first_name: "A", last_name: "B", company: "C", work_email: `flood${i}@example.com`, role: "R", phone_number: "+1 555 010 0000", location: "Other", yearly_call_volume: "0-1000" },
    });
    expect(res.status()).toBe(201);
  }
  await page.goto("/request-a-demo");
  const email = `refused-${randomBytes(4).toString("hex")}@example.com`;
  await fillValidForm(page, { email });
  await demoForm(page).getByRole("button", { name: "Request a demo" }).click();
  await expectToast(page, "Error");
  await expectToast(page, /Too many demo requests from your network\. Please try again in /);
  await expect(demoForm(page).getByLabel("Work email")).toHaveValue(email);
  expect(await server.db.select().from(demoRequests).where(eq(demoRequests.workEmail, email))).toHaveLength(0);
});
