/** A phone number of the signed-in account, answered by a new assistant, for specs that dial it. */
import type { Page } from "@playwright/test";
import { createCredentialsService } from "../src/server/modules/credentials/credentials.service.ts";
import { expect, type TestServer } from "./fixtures.ts";
import { storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

/** The account's OpenAI key and Twilio account, an assistant "Phone Ava" greeting with `greeting`, and a number bought for it. */
export async function phoneNumberFor(page: Page, server: TestServer, email: string, greeting: string) {
  // A user's first organisation takes their id.
  await createCredentialsService(server.app.ctx).save(await userIdOf(server, email), "openai_api_key", server.openai.apiKey);
  const account = server.twilio.addAccount();
  expect((await page.request.put(`${server.url}/api/credentials/twilio`, { data: { account_sid: account.sid, auth_token: account.authToken } })).ok()).toBe(true);
  const assistant = await page.request.post(`${server.url}/api/assistants`, { data: { name: "Phone Ava", instructions: "Help callers.", first_message: greeting } });
  expect(assistant.ok()).toBe(true);
  const bought = await page.request.post(`${server.url}/api/phone-numbers`, { data: { country_code: "US", assistant_id: ((await assistant.json()) as { id: string }).id } });
  expect(bought.status()).toBe(201);
  const { phone_number: number } = (await bought.json()) as { phone_number: string };
  return { account, number };
}

/** A Twilio account at the fake Twilio and the OpenAI key, saved through the API: what placing a call needs. */
export async function saveCallingKeys(page: Page, server: TestServer) {
  const account = server.twilio.addAccount();
  expect((await page.request.put(`${server.url}/api/credentials/twilio`, { data: { account_sid: account.sid, auth_token: account.authToken } })).ok()).toBe(true);
  await storeOpenAiKey(page, server);
  return account;
}
