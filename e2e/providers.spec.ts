import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PROVIDER_MESSAGES, PROVIDER_TEXTS } from "../src/shared/providers.ts";
import { expect, expectToast, hold, test } from "./fixtures.ts";

/** A stand-in for the services' key checks on loopback (an allowed host): any key but "wrong" is taken. */
let services: Server;
let servicesUrl: string;
/** The voice previews that reached the stand-in (ElevenLabs' streaming speech path). */
const previews: string[] = [];
test.beforeAll(async () => {
  services = createServer((req, res) => {
    if (req.url?.includes("/v1/text-to-speech/")) previews.push(req.url);
    const sent = `${req.headers.authorization ?? ""}${req.headers["xi-api-key"] ?? ""}`;
    res.writeHead(sent.includes("wrong") ? 401 : 200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => services.listen(0, "127.0.0.1", resolve));
  servicesUrl = `http://127.0.0.1:${(services.address() as AddressInfo).port}`;
});
test.afterAll(() => new Promise((resolve) => services.close(resolve)));

test("add providers in Settings, then put an assistant on a pipeline of them in its form", async ({ page, user: _user }) => {
  await page.goto("/settings");
  const card = page.getByTestId("providers-card");
  await expect(card.getByText("No providers yet.")).toBeVisible();

  const add = async (name: string, kind: string, service: string, key: string) => {
    await card.getByLabel("Name", { exact: true }).fill(name);
    await card.getByLabel("Kind", { exact: true }).selectOption({ label: kind });
    await card.getByLabel("Service", { exact: true }).selectOption({ label: service });
    await card.getByLabel("API key", { exact: true }).fill(key);
    await card.getByLabel(PROVIDER_TEXTS.baseUrl, { exact: true }).fill(servicesUrl);
    await card.getByRole("button", { name: "Add provider" }).click();
  };
  // What is wrong, in words, before anything is sent.
  await card.getByRole("button", { name: "Add provider" }).click();
  await expect(card.getByRole("alert")).toHaveText("Name is required");

  // A key the service refuses is said in words, and nothing is added.
  await add("Deepgram", "Transcriber", "Deepgram", "dg-wrong-456789abcd");
  await expect(page.getByText(PROVIDER_MESSAGES.keyRefused("deepgram", 401))).toBeVisible();
  await expect(card.getByText("No providers yet.")).toBeVisible();

  // Each one is in the list (a header row and one per provider) before the next is typed: the form
  // empties itself when an add succeeds, and the first toast is still showing when the second comes.
  const table = card.getByRole("table", { name: "Providers" });
  await add("Deepgram", "Transcriber", "Deepgram", "dg-0123456789abcd");
  await expectToast(page, "Provider added");
  await expect(table.getByRole("row")).toHaveCount(2);
  await add("Groq", "Language model", "OpenAI-compatible Chat Completions", "gsk-0123456789abcd");
  await expect(table.getByRole("row")).toHaveCount(3);
  await add("ElevenLabs", "Voice", "ElevenLabs", "xi-0123456789abcd");
  await expect(table.getByRole("row")).toHaveCount(4);
  // The key is never shown again: only a masked hint.
  await expect(table).toContainText("dg-••••abcd");
  await expect(page.getByText("dg-0123456789abcd")).toHaveCount(0);

  // Pipeline chosen before the providers have come: its slots take the first of each kind when they do.
  const releaseProviders = await hold(page, /\/api\/providers(\?|$)/);
  await page.goto("/assistants");
  await page.getByRole("button", { name: "Create new" }).click();
  const panel = page.getByRole("dialog", { name: "Create Assistant" });
  await panel.getByLabel("Name").fill("Piped Desk");
  await panel.getByLabel("Engine", { exact: true }).selectOption("pipeline");
  await expect(panel.getByLabel("Transcriber", { exact: true })).toHaveValue("");
  releaseProviders();
  await expect(panel.getByLabel("Transcriber", { exact: true })).toHaveValue(/.+/);
  await panel.getByLabel("Model name", { exact: true }).fill("llama-3.3-70b-versatile");
  await panel.getByLabel("Voice id", { exact: true }).fill("rachel");
  // The caller's turn ends on the transcriber's final words unless silence is chosen (voice activity detection).
  await expect(panel.getByText(/Voice activity detection \(Silero VAD/)).toBeVisible();
  await panel.getByLabel("End of the caller's turn", { exact: true }).click();
  await page.getByRole("option", { name: "After half a second of silence (voice activity detection)" }).click();
  // Every service here is on loopback: the form says the call stays on the network, and what a minute costs.
  await expect(panel.getByTestId("engine-network")).toHaveText("Stays on your network: every service is at a private or loopback address");
  await expect(panel.getByTestId("engine-estimate")).toContainText(/About \$\d+\.\d{4} a minute/);
  // Preview: the server asks the voice service for a sample, and the page plays it.
  await panel.getByRole("button", { name: "Preview", exact: true }).click();
  await expect(panel.getByTestId("voice-preview")).toHaveAttribute("src", /^blob:/);
  expect(previews.some((url) => url.includes("/v1/text-to-speech/rachel/"))).toBe(true);
  await panel.getByRole("button", { name: "Create Assistant" }).click();
  await expectToast(page, "Assistant created successfully!");

  const list = ((await (await page.request.get("/api/assistants")).json()) as { data: Array<{ name: string; voice_engine: { type: string; model?: { model: string }; voice?: { voice: string } } }> }).data;
  expect(list.find((a) => a.name === "Piped Desk")?.voice_engine).toMatchObject({ type: "pipeline", model: { model: "llama-3.3-70b-versatile" }, voice: { voice: "rachel" }, turn_end: "vad" });

  // A provider in use cannot be deleted: the reason names the assistant.
  await page.goto("/settings");
  await card.getByRole("button", { name: "Delete Deepgram" }).click();
  await expect(page.getByText("This provider is used by Piped Desk.", { exact: false })).toBeVisible();
});

test("put an assistant on OpenAI GPT-Live with a voice of its own, and find it chosen when editing", async ({ page, user: _user }) => {
  await page.goto("/assistants");
  await page.getByRole("button", { name: "Create new" }).click();
  const panel = page.getByRole("dialog", { name: "Create Assistant" });
  await panel.getByLabel("Name").fill("Live Desk");
  await panel.getByLabel("Engine", { exact: true }).selectOption({ label: "Speech-to-speech: OpenAI GPT-Live" });
  await expect(panel.getByLabel("GPT-Live model", { exact: true })).toHaveValue("gpt-live-1");
  await panel.getByLabel("GPT-Live voice", { exact: true }).selectOption("vesper");
  await panel.getByRole("button", { name: "Create Assistant" }).click();
  await expectToast(page, "Assistant created successfully!");

  const list = ((await (await page.request.get("/api/assistants")).json()) as { data: Array<{ name: string; voice_engine: unknown }> }).data;
  const saved = list.find((a) => a.name === "Live Desk");
  expect(saved?.voice_engine).toEqual({ type: "gpt-live", model: "gpt-live-1", voice: "vesper" });

  // Created, it opens in its details.
  await page.getByRole("dialog", { name: "Live Desk" }).getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Assistant" });
  await expect(edit.getByLabel("Engine", { exact: true })).toHaveValue("gpt-live");
  await expect(edit.getByLabel("GPT-Live voice", { exact: true })).toHaveValue("vesper");
});
