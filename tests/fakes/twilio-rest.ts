import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A real HTTP server on loopback that answers like Twilio's REST API (2010-04-01, JSON), for the
 * official `twilio` package pointed at it through TWILIO_API_BASE. It checks HTTP Basic auth
 * against the accounts it knows, keeps each account's numbers, and answers with Twilio's shapes
 * and its classic error body `{ code, message, more_info, status }` (protocols §3.7).
 *
 * | request                                                        | answer                              |
 * |----------------------------------------------------------------|-------------------------------------|
 * | GET    /2010-04-01/Accounts/{AC}.json                          | the account                         |
 * | GET    …/AvailablePhoneNumbers/{ISO}/Local.json?VoiceEnabled…  | `available_phone_numbers` page      |
 * | POST   …/IncomingPhoneNumbers.json (PhoneNumber, VoiceUrl, …)  | 201 IncomingPhoneNumber             |
 * | POST   …/IncomingPhoneNumbers/{PN}.json                        | 200 IncomingPhoneNumber             |
 * | DELETE …/IncomingPhoneNumbers/{PN}.json                        | 204                                 |
 * | POST   …/Calls.json (To, From, Url or Twiml, StatusCallback, …) | 201 Call (queued); twilio-far-end.ts plays it |
 * | POST   …/Calls/{CA}.json (Twiml or Status)                     | 200 Call                            |
 * | GET    …/Calls/{CA}.json                                       | 200 Call (price null until set)     |
 *
 * `failNext(operation, error)` makes the next such request fail with Twilio's error body, and
 * every request is recorded in `requests` so a test can assert what Twilio received.
 */

export type TwilioOperation = "account" | "search" | "purchase" | "update" | "release" | "callCreate" | "callUpdate" | "callFetch";

export interface TwilioErrorSpec {
  status: number;
  code: number;
  message: string;
}

/** Refusals as Twilio words them, for tests to inject. */
export const TWILIO_ERRORS = {
  authenticate: { status: 401, code: 20003, message: "Authenticate" },
  /** A trial account may hold one number (Twilio error 21404). */
  trialLimit: {
    status: 400,
    code: 21404,
    message: "Trial accounts are allowed only one Twilio number. To purchase additional numbers, please upgrade your account.",
  },
  insufficientFunds: {
    status: 400,
    code: 20005,
    message: "Account not active: the account balance is too low to purchase this phone number.",
  },
  numberUnavailable: (phoneNumber: string) => ({ status: 400, code: 21422, message: `PhoneNumber ${phoneNumber} is not available.` }),
  notFound: (path: string) => ({ status: 404, code: 20404, message: `The requested resource ${path} was not found` }),
  invalidTo: (to: string) => ({ status: 400, code: 21211, message: `Invalid 'To' Phone Number: ${to}` }),
  fromNotOwned: (from: string) => ({ status: 400, code: 21210, message: `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.` }),
  urlRequired: { status: 400, code: 21205, message: "Either Url, Twiml or ApplicationSid must be provided" },
} satisfies Record<string, TwilioErrorSpec | ((arg: string) => TwilioErrorSpec)>;

export interface FakeAccount {
  sid: string;
  authToken: string;
  friendlyName: string;
  status: "active" | "suspended" | "closed";
}

export interface FakeIncomingNumber {
  sid: string;
  accountSid: string;
  phoneNumber: string;
  isoCountry: string;
  friendlyName: string;
  voiceUrl: string | null;
  voiceMethod: string;
  statusCallback: string | null;
  statusCallbackMethod: string;
  dateCreated: Date;
}

export interface FakeCall {
  sid: string;
  accountSid: string;
  from: string;
  to: string;
  status: string;
  /** The last TwiML a `calls(sid).update({ twiml })` sent. */
  twiml: string | null;
  direction: "inbound" | "outbound-api";
  /** Calls.create's form (outbound calls only). */
  created?: Record<string, string>;
  /** Calls.create's StatusCallbackEvent values (a repeated field). */
  events?: string[];
  /** As Twilio gives it: a negative decimal string in USD once the call is rated, null until then. */
  price?: string | null;
}

export interface RecordedTwilioRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  /** The form fields of a POST, by Twilio's PascalCase names. */
  form: Record<string, string>;
  /** The Basic-auth user name (an Account SID), or null. */
  username: string | null;
  operation: TwilioOperation | null;
}

export interface FakeTwilioRest {
  /** e.g. http://127.0.0.1:41234 — what TWILIO_API_BASE is set to. */
  baseUrl: string;
  /** An active account ready to use. */
  account: FakeAccount;
  requests: RecordedTwilioRequest[];
  /** A new account (its SID given or random). */
  addAccount(options?: Partial<FakeAccount>): FakeAccount;
  /** Numbers Twilio offers in a country; `[]` makes the country run out. Defaults exist for the six choices. */
  setAvailable(isoCountry: string, phoneNumbers: string[]): void;
  /** Every country offers endless numbers again (undoes `setAvailable`; for a server shared by several tests). */
  resetAvailable(): void;
  /** A number the account holds already (bought before the test): outbound calls may come from it. */
  addNumber(accountSid: string, phoneNumber: string): FakeIncomingNumber;
  /** The numbers an account holds now (bought and not released). */
  numbersOf(accountSid: string): FakeIncomingNumber[];
  addCall(accountSid: string, call: { from: string; to: string; sid?: string; status?: string; price?: string | null }): FakeCall;
  /** Twilio has rated the call: GET Calls/{sid}.json answers this price from now on (e.g. "-0.0085"). */
  setCallPrice(sid: string, price: string | null): void;
  call(sid: string): FakeCall | undefined;
  /** Runs `listener` after each call update that carries TwiML (as Twilio starts executing it). */
  onTwimlUpdate(listener: (call: FakeCall) => void): void;
  /** Runs `listener` after every call update (its form: Twiml, Status). */
  onCallUpdate(listener: (call: FakeCall, form: Record<string, string>) => void): void;
  /** Runs `listener` after Calls.create answered 201 (twilio-far-end.ts plays the callee). */
  onCallCreated(listener: (call: FakeCall) => void): void;
  failNext(operation: TwilioOperation, error: TwilioErrorSpec): void;
  /** Runs `hook` once, while the next such request is being answered (e.g. to race it). */
  duringNext(operation: TwilioOperation, hook: () => Promise<void> | void): void;
  close(): Promise<void>;
}

export const fakeSid = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

/** Until a test sets a country's list, Twilio never runs out there: numbers follow these prefixes. */
const DEFAULT_PREFIX: Record<string, string> = { US: "+1415555", CA: "+1604555", GB: "+44207183", AU: "+6125550", DE: "+49305550", FR: "+3315550" };
const DEFAULT_OFFERED = 4;

const rfc2822 = (d: Date) => d.toUTCString().replace("GMT", "+0000");

export async function startFakeTwilioRest(): Promise<FakeTwilioRest> {
  const accounts = new Map<string, FakeAccount>();
  const available = new Map(Object.keys(DEFAULT_PREFIX).map((c) => [c, [] as string[]]));
  const endless = new Set(Object.keys(DEFAULT_PREFIX));
  let serial = 100;
  const topUp = (country: string) => {
    const list = available.get(country)!;
    while (endless.has(country) && list.length < DEFAULT_OFFERED) list.push(`${DEFAULT_PREFIX[country]}${String(serial++).padStart(4, "0")}`);
  };
  for (const country of endless) topUp(country);
  const numbers = new Map<string, FakeIncomingNumber>();
  const calls = new Map<string, FakeCall>();
  const failures = new Map<TwilioOperation, TwilioErrorSpec[]>();
  const hooks = new Map<TwilioOperation, (() => Promise<void> | void)[]>();
  const requests: RecordedTwilioRequest[] = [];
  const twimlListeners: Array<(call: FakeCall) => void> = [];
  const updateListeners: Array<(call: FakeCall, form: Record<string, string>) => void> = [];
  const createListeners: Array<(call: FakeCall) => void> = [];

  const addAccount = (options: Partial<FakeAccount> = {}): FakeAccount => {
    const account: FakeAccount = {
      sid: options.sid ?? fakeSid("AC"),
      authToken: options.authToken ?? randomBytes(16).toString("hex"),
      friendlyName: options.friendlyName ?? "My first Twilio account",
      status: options.status ?? "active",
    };
    accounts.set(account.sid, account);
    return account;
  };

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ code: 20500, message: `Fake Twilio failed: ${String(err)}`, more_info: "", status: 500 }));
    });
  });

  const sendJson = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, e: TwilioErrorSpec) =>
    sendJson(res, e.status, { code: e.code, message: e.message, more_info: `https://www.twilio.com/docs/errors/${e.code}`, status: e.status });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", "http://fake");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const fields = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
    const form = Object.fromEntries(fields);
    const auth = parseBasic(req.headers.authorization);
    const path = url.pathname;
    const route = matchRoute(req.method ?? "GET", path);
    requests.push({ method: req.method ?? "GET", path, query: Object.fromEntries(url.searchParams), form, username: auth?.user ?? null, operation: route?.operation ?? null });

    // Twilio checks credentials before anything else, and only then whether the path exists.
    const account = auth ? accounts.get(auth.user) : undefined;
    if (!account || account.authToken !== auth?.password) return sendError(res, TWILIO_ERRORS.authenticate);
    if (!route || route.accountSid !== account.sid) return sendError(res, TWILIO_ERRORS.notFound(path));
    const failure = failures.get(route.operation)?.shift();
    if (failure) return sendError(res, failure);
    await hooks.get(route.operation)?.shift()?.();

    switch (route.operation) {
      case "account":
        return sendJson(res, 200, accountJson(account));
      case "search": {
        if (!available.has(route.id!)) return sendError(res, TWILIO_ERRORS.notFound(path));
        const size = Math.min(Number(url.searchParams.get("PageSize") ?? 50) || 50, 1000);
        const list = available.get(route.id!)!.slice(0, size);
        return sendJson(res, 200, {
          uri: `${path}?${url.searchParams.toString()}`,
          available_phone_numbers: list.map((n) => availableJson(n, route.id!)),
        });
      }
      case "purchase": {
        const wanted = form.PhoneNumber ?? "";
        const country = [...available].find(([, list]) => list.includes(wanted))?.[0];
        if (!country) return sendError(res, TWILIO_ERRORS.numberUnavailable(wanted));
        available.set(country, available.get(country)!.filter((n) => n !== wanted));
        topUp(country);
        const number: FakeIncomingNumber = {
          sid: fakeSid("PN"),
          accountSid: account.sid,
          phoneNumber: wanted,
          isoCountry: country,
          friendlyName: form.FriendlyName ?? formatNumber(wanted),
          voiceUrl: form.VoiceUrl ?? null,
          voiceMethod: form.VoiceMethod ?? "POST",
          statusCallback: form.StatusCallback ?? null,
          statusCallbackMethod: form.StatusCallbackMethod ?? "POST",
          dateCreated: new Date(),
        };
        numbers.set(number.sid, number);
        return sendJson(res, 201, incomingJson(number));
      }
      case "update":
      case "release": {
        const number = numbers.get(route.id!);
        if (!number || number.accountSid !== account.sid) return sendError(res, TWILIO_ERRORS.notFound(path));
        if (route.operation === "release") {
          numbers.delete(number.sid);
          res.writeHead(204).end();
          return;
        }
        if (form.VoiceUrl !== undefined) number.voiceUrl = form.VoiceUrl;
        if (form.VoiceMethod !== undefined) number.voiceMethod = form.VoiceMethod;
        if (form.StatusCallback !== undefined) number.statusCallback = form.StatusCallback;
        if (form.StatusCallbackMethod !== undefined) number.statusCallbackMethod = form.StatusCallbackMethod;
        if (form.FriendlyName !== undefined) number.friendlyName = form.FriendlyName;
        return sendJson(res, 200, incomingJson(number));
      }
      case "callCreate": {
        const to = form.To ?? "";
        if (!/^\+[1-9]\d{6,14}$/.test(to)) return sendError(res, TWILIO_ERRORS.invalidTo(to));
        const from = form.From ?? "";
        if (![...numbers.values()].some((n) => n.accountSid === account.sid && n.phoneNumber === from)) return sendError(res, TWILIO_ERRORS.fromNotOwned(from));
        if (!form.Url && !form.Twiml) return sendError(res, TWILIO_ERRORS.urlRequired);
        const call: FakeCall = { sid: fakeSid("CA"), accountSid: account.sid, from, to, status: "queued", twiml: form.Twiml ?? null, direction: "outbound-api", created: form, events: fields.getAll("StatusCallbackEvent") };
        calls.set(call.sid, call);
        setImmediate(() => createListeners.forEach((l) => l(call)));
        return sendJson(res, 201, callJson(call));
      }
      case "callFetch": {
        const call = calls.get(route.id!);
        if (!call || call.accountSid !== account.sid) return sendError(res, TWILIO_ERRORS.notFound(path));
        return sendJson(res, 200, callJson(call));
      }
      case "callUpdate": {
        const call = calls.get(route.id!);
        if (!call || call.accountSid !== account.sid) return sendError(res, TWILIO_ERRORS.notFound(path));
        if (form.Twiml !== undefined) call.twiml = form.Twiml;
        if (form.Status !== undefined) call.status = form.Status;
        if (form.Twiml !== undefined) setImmediate(() => twimlListeners.forEach((l) => l(call)));
        setImmediate(() => updateListeners.forEach((l) => l(call, form)));
        return sendJson(res, 200, callJson(call));
      }
    }
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    account: addAccount(),
    requests,
    addAccount,
    setAvailable(country, list) {
      endless.delete(country);
      available.set(country, [...list]);
    },
    resetAvailable() {
      for (const country of Object.keys(DEFAULT_PREFIX)) {
        endless.add(country);
        available.set(country, []);
        topUp(country);
      }
    },
    addNumber(accountSid, phoneNumber) {
      const number: FakeIncomingNumber = {
        sid: fakeSid("PN"),
        accountSid,
        phoneNumber,
        isoCountry: "US",
        friendlyName: formatNumber(phoneNumber),
        voiceUrl: null,
        voiceMethod: "POST",
        statusCallback: null,
        statusCallbackMethod: "POST",
        dateCreated: new Date(),
      };
      numbers.set(number.sid, number);
      return number;
    },
    numbersOf: (accountSid) => [...numbers.values()].filter((n) => n.accountSid === accountSid),
    addCall(accountSid, call) {
      const created: FakeCall = { sid: call.sid ?? fakeSid("CA"), accountSid, from: call.from, to: call.to, status: call.status ?? "in-progress", twiml: null, direction: "inbound", price: call.price ?? null };
      calls.set(created.sid, created);
      return created;
    },
    call: (sid) => calls.get(sid),
    setCallPrice(sid, price) {
      const call = calls.get(sid);
      if (!call) throw new Error(`no fake call ${sid}`);
      call.price = price;
    },
    onTwimlUpdate: (listener) => void twimlListeners.push(listener),
    onCallUpdate: (listener) => void updateListeners.push(listener),
    onCallCreated: (listener) => void createListeners.push(listener),
    failNext(operation, error) {
      failures.set(operation, [...(failures.get(operation) ?? []), error]);
    },
    duringNext(operation, hook) {
      hooks.set(operation, [...(hooks.get(operation) ?? []), hook]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseBasic(header: string | undefined): { user: string; password: string } | null {
  const match = /^Basic\s+(.+)$/i.exec(header ?? "");
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const at = decoded.indexOf(":");
  return at < 0 ? null : { user: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

function matchRoute(method: string, path: string): { operation: TwilioOperation; accountSid: string; id?: string } | null {
  const m = /^\/2010-04-01\/Accounts\/([^/]+?)(\/.*)?\.json$/.exec(path);
  if (!m) return null;
  const [, accountSid, rest = ""] = m;
  if (!accountSid) return null;
  let r: RegExpExecArray | null;
  if (rest === "" && method === "GET") return { operation: "account", accountSid };
  if ((r = /^\/AvailablePhoneNumbers\/([A-Z]{2})\/Local$/.exec(rest)) && method === "GET") return { operation: "search", accountSid, id: r[1] };
  if (rest === "/IncomingPhoneNumbers" && method === "POST") return { operation: "purchase", accountSid };
  if ((r = /^\/IncomingPhoneNumbers\/(PN\w+)$/.exec(rest))) {
    if (method === "POST") return { operation: "update", accountSid, id: r[1] };
    if (method === "DELETE") return { operation: "release", accountSid, id: r[1] };
  }
  if (rest === "/Calls" && method === "POST") return { operation: "callCreate", accountSid };
  if ((r = /^\/Calls\/(CA\w+)$/.exec(rest)) && method === "POST") return { operation: "callUpdate", accountSid, id: r[1] };
  if ((r = /^\/Calls\/(CA\w+)$/.exec(rest)) && method === "GET") return { operation: "callFetch", accountSid, id: r[1] };
  return null;
}

function callJson(c: FakeCall) {
  const now = rfc2822(new Date());
  return {
    sid: c.sid,
    account_sid: c.accountSid,
    from: c.from,
    from_formatted: formatNumber(c.from),
    to: c.to,
    to_formatted: formatNumber(c.to),
    status: c.status,
    direction: c.direction,
    answered_by: null,
    api_version: "2010-04-01",
    date_created: now,
    date_updated: now,
    start_time: null,
    end_time: null,
    duration: null,
    price: c.price ?? null,
    price_unit: "USD",
    uri: `/2010-04-01/Accounts/${c.accountSid}/Calls/${c.sid}.json`,
  };
}

function accountJson(a: FakeAccount) {
  const now = rfc2822(new Date());
  return {
    sid: a.sid,
    owner_account_sid: a.sid,
    friendly_name: a.friendlyName,
    status: a.status,
    type: "Full",
    auth_token: a.authToken,
    date_created: now,
    date_updated: now,
    uri: `/2010-04-01/Accounts/${a.sid}.json`,
    subresource_uris: { incoming_phone_numbers: `/2010-04-01/Accounts/${a.sid}/IncomingPhoneNumbers.json`, calls: `/2010-04-01/Accounts/${a.sid}/Calls.json` },
  };
}

function availableJson(phoneNumber: string, isoCountry: string) {
  return {
    friendly_name: formatNumber(phoneNumber),
    phone_number: phoneNumber,
    lata: null,
    locality: "Springfield",
    rate_center: null,
    latitude: null,
    longitude: null,
    region: null,
    postal_code: null,
    iso_country: isoCountry,
    address_requirements: "none",
    beta: false,
    // Twilio's JSON spells these SMS and MMS (protocols §3.7).
    capabilities: { voice: true, SMS: true, MMS: false, fax: false },
  };
}

function incomingJson(n: FakeIncomingNumber) {
  return {
    sid: n.sid,
    account_sid: n.accountSid,
    friendly_name: n.friendlyName,
    phone_number: n.phoneNumber,
    voice_url: n.voiceUrl,
    voice_method: n.voiceMethod,
    status_callback: n.statusCallback,
    status_callback_method: n.statusCallbackMethod,
    capabilities: { voice: true, sms: true, mms: false, fax: false },
    status: "in-use",
    api_version: "2010-04-01",
    date_created: rfc2822(n.dateCreated),
    date_updated: rfc2822(new Date()),
    uri: `/2010-04-01/Accounts/${n.accountSid}/IncomingPhoneNumbers/${n.sid}.json`,
  };
}

function formatNumber(e164: string) {
  const digits = e164.replace(/^\+1/, "");
  return digits.length === 10 ? `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}` : e164;
}
