/**
 * The real app on a real port whose PUBLIC_URL is its own address (so Twilio's signatures,
 * computed over PUBLIC_URL, match), the fake OpenAI behind it, and a user owning a phone
 * number with Twilio credentials — inserted directly, as the phone-numbers module would.
 */
import { afterAll, beforeAll, expect } from "vitest";
import type { AppDeps } from "../../src/server/app.ts";
import { phoneNumbers } from "../../src/server/db/schema.ts";
import { reservePort } from "../free-port.ts";
import type { PhoneNumberStatus } from "../../src/shared/phone-numbers.ts";
import { createCredentialsService } from "../../src/server/modules/credentials/credentials.service.ts";
import { buildTestApp, freshDatabase } from "../harness.ts";
import { closeInOrder } from "../close.ts";
import { startFakeRealtime, type FakeRealtime } from "./fake-realtime.ts";
import { TwilioCaller, type DialOptions } from "./twilio-caller.ts";
import { attachFarEnd, type FarEndOptions } from "./twilio-far-end.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "./twilio-rest.ts";
import { createAssistant, signUpCaller, type Caller } from "./realtime-app.ts";

export const TEST_AUTH_TOKEN = "twilio-auth-token-0123456789abcdef";
export const TEST_ACCOUNT_SID = `AC${"1".repeat(32)}`;

type PhoneAppConfig = Record<string, string> | ((origin: string) => Record<string, string>);

/** `config` may depend on the app's own address (e.g. INSTANCE_URL). */
export async function startPhoneApp(fake: FakeRealtime, config: PhoneAppConfig = {}, deps: Partial<AppDeps> = {}) {
  const { port, release } = await reservePort();
  const origin = `http://127.0.0.1:${port}`;
  const extra = typeof config === "function" ? config(origin) : config;
  const built = await buildTestApp({ config: { OPENAI_BASE_URL: fake.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", PUBLIC_URL: origin, ...extra }, deps }).finally(release);
  if (deps.database) built.db = deps.database.db;
  await built.app.listen({ port, host: "127.0.0.1" });
  return { ...built, origin };
}

export type PhoneApp = Awaited<ReturnType<typeof startPhoneApp>>;

/** Two instances on one fresh database (workers behind one port, or servers behind a balancer); `b` takes `configB`, else `configA`. */
export async function startPhoneAppPair(fake: FakeRealtime, configA: PhoneAppConfig, configB: PhoneAppConfig = configA) {
  const database = await freshDatabase();
  const a = await startPhoneApp(fake, configA, { database });
  const b = await startPhoneApp(fake, configB, { database });
  return { database, a, b };
}

/** A user with an OpenAI key (the fake's) and Twilio credentials. */
export async function phoneOwner(app: PhoneApp, apiKey: string, authToken = TEST_AUTH_TOKEN): Promise<Caller> {
  const who = await signUpCaller(app.app, apiKey);
  const credentials = createCredentialsService(app.app.ctx);
  await credentials.save(who.organizationId, "twilio_account_sid", TEST_ACCOUNT_SID);
  await credentials.save(who.organizationId, "twilio_auth_token", authToken);
  return who;
}

export async function insertPhoneNumber(app: PhoneApp, who: Caller, e164: string, assistantId: string | null, status: PhoneNumberStatus = "active"): Promise<string> {
  const [row] = await app.db
    .insert(phoneNumbers)
    .values({ organizationId: who.organizationId, phoneNumber: e164, countryCode: "US", status, assistantId, providerSid: `PN${"2".repeat(32)}` })
    .returning({ id: phoneNumbers.id });
  return row!.id;
}

/** A number that rings: a phone owner, an assistant made with `assistant`'s fields, and `to` linked to it. */
export async function phoneLine(app: PhoneApp, apiKey: string, to: string, assistant: Record<string, unknown> = {}) {
  const owner = await phoneOwner(app, apiKey);
  const assistantId = (await createAssistant(app.app, owner, assistant)).id;
  const numberId = await insertPhoneNumber(app, owner, to, assistantId);
  return { owner, assistantId, numberId };
}

export interface TwilioLineOptions {
  apiKey: string;
  number: string;
  /** The assistant's fields, or what makes them once the app and its owner exist (e.g. the owner's tools). */
  assistant?: Record<string, unknown> | ((app: PhoneApp, owner: Caller) => Promise<Record<string, unknown>>);
  config?: PhoneAppConfig;
}

/**
 * The fake Realtime server (`apiKey`), the app on it (`config`) and one phoneLine to `number`, as
 * most Twilio test files begin; `dial` rings the number from `from` as Twilio would.
 */
export async function startTwilioLine(o: TwilioLineOptions) {
  const fake = await startFakeRealtime({ apiKey: o.apiKey });
  const app = await startPhoneApp(fake, o.config);
  const owner = await phoneOwner(app, fake.apiKey);
  const fields = typeof o.assistant === "function" ? await o.assistant(app, owner) : o.assistant;
  const assistantId = (await createAssistant(app.app, owner, fields)).id;
  const numberId = await insertPhoneNumber(app, owner, o.number, assistantId);
  const dial = (from: string, options: Partial<DialOptions> = {}) => TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to: o.number, from, ...options });
  return { fake, app, owner, assistantId, numberId, dial };
}

export type TwilioLine = Awaited<ReturnType<typeof startTwilioLine>>;

/** A startTwilioLine made before the file's tests and closed after them: its fields are there once a test (or a later beforeAll) runs. */
export function setUpTwilioLine(o: TwilioLineOptions): TwilioLine {
  const line = {} as TwilioLine;
  beforeAll(async () => {
    Object.assign(line, await startTwilioLine(o));
  });
  afterAll(() => closeInOrder(line.app?.app, line.fake));
  return line;
}

/**
 * startPhoneAppPair on a fresh fake Realtime server (`apiKey`) with one phoneLine to `number` on
 * `a`, made before the file's tests and closed after them; `dialA` rings the number at `a`.
 */
export function setUpTwilioPair(o: { apiKey: string; number: string; configA: PhoneAppConfig; configB?: PhoneAppConfig }) {
  const pair = {} as Awaited<ReturnType<typeof startPhoneAppPair>> & { fake: FakeRealtime };
  beforeAll(async () => {
    pair.fake = await startFakeRealtime({ apiKey: o.apiKey });
    Object.assign(pair, await startPhoneAppPair(pair.fake, o.configA, o.configB));
    await phoneLine(pair.a, pair.fake.apiKey, o.number);
  });
  afterAll(() => closeInOrder(pair.a?.app, pair.b?.app, pair.database, pair.fake));
  const dialA = (options: Partial<DialOptions> = {}) => TwilioCaller.dial({ origin: pair.a.origin, authToken: TEST_AUTH_TOKEN, to: o.number, from: "+15559876", ...options });
  return Object.assign(pair, { dialA });
}

/**
 * A number that campaigns dial from: a phone owner, an assistant that waits for the callee and
 * greets them by `{{first_name}}`, `from` on no assistant, and room for 50 calls at once.
 */
export async function campaignLine(app: PhoneApp, apiKey: string, from: string) {
  const owner = await phoneOwner(app, apiKey);
  const assistantId = (await createAssistant(app.app, owner, { first_message: null, instructions: "Remind {{first_name}}." })).id;
  const numberId = await insertPhoneNumber(app, owner, from, null);
  const res = await app.app.inject({ method: "PUT", url: "/api/settings/calls", headers: { cookie: owner.cookie }, payload: { max_concurrent_calls: 50 } });
  expect(res.statusCode, res.body).toBe(200);
  return { owner, assistantId, numberId };
}

/** The fake Twilio REST API holding the test account (TEST_ACCOUNT_SID, TEST_AUTH_TOKEN) and `ours`: what an app dials out through, as its TWILIO_API_BASE. */
export async function startAccountRest(ours: string): Promise<FakeTwilioRest> {
  const rest = await startFakeTwilioRest();
  rest.addAccount({ sid: TEST_ACCOUNT_SID, authToken: TEST_AUTH_TOKEN });
  rest.addNumber(TEST_ACCOUNT_SID, ours);
  return rest;
}

export interface DialOutOptions {
  apiKey: string;
  /** The number the app dials from, held by the test account on the fake REST API. */
  ours: string;
  config?: Record<string, string>;
  deps?: Partial<AppDeps>;
  farEnd?: Omit<FarEndOptions, "origin" | "authToken">;
}

/** The fake Realtime server (`apiKey`), the fake Twilio REST API holding `ours`, the app dialling out through it, and the far end playing each callee. */
export async function startDialOut(o: DialOutOptions) {
  const fake = await startFakeRealtime({ apiKey: o.apiKey });
  const rest = await startAccountRest(o.ours);
  const app = await startPhoneApp(fake, { TWILIO_API_BASE: rest.baseUrl, ...o.config }, o.deps);
  const farEnd = attachFarEnd(rest, { origin: app.origin, authToken: TEST_AUTH_TOKEN, ...o.farEnd });
  return { fake, rest, app, farEnd };
}

export type DialOut = Awaited<ReturnType<typeof startDialOut>>;

/** A startDialOut made before the file's tests and closed after them. */
export function setUpDialOut(o: DialOutOptions): DialOut {
  const out = {} as DialOut;
  // Generous: starting the app, its job queue and the fakes is slow on a busy machine.
  beforeAll(async () => {
    Object.assign(out, await startDialOut(o));
  }, 180_000);
  afterAll(() => closeInOrder(out.app?.app, out.rest, out.fake));
  return out;
}
