import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestBrowser } from "../../../../tests/fakes/realtime-browser-client.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";

/** The live-call socket only opens for pages of PUBLIC_URL. */
describe("live-call socket origin", () => {
  let app: TestApp;
  let cookie: string;
  let base: string;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ config: { PUBLIC_URL: "https://switchboard.example.com" } }));
    await app.listen({ host: "127.0.0.1", port: 0 });
    const address = app.server.address();
    base = `ws://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
    ({ cookie } = await signUpAndLogIn(app));
  });
  afterAll(() => app.close());

  const open = (origin?: string) =>
    TestBrowser.connect(`${base}/api/calls/live?session_id=not-a-real-session`, {
      headers: { cookie, ...(origin ? { origin } : {}) },
    });

  it("refuses the upgrade with 403 when a page of another site opens it", async () => {
    for (const origin of ["https://evil.example", "http://switchboard.example.com", "https://switchboard.example.com:8443", "null"]) {
      await expect(open(origin), origin).rejects.toThrow(/Unexpected server response: 403/);
    }
  });

  it("upgrades for PUBLIC_URL's own pages (and non-browser clients), then checks the session id", async () => {
    for (const origin of ["https://switchboard.example.com", undefined]) {
      const browser = await open(origin);
      await browser.until(() => browser.closed !== null, "close");
      expect(browser.closed?.code).toBe(4404); // unknown session: the check after the origin
    }
  });
});
