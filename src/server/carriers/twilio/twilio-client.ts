import twilio from "twilio";
import type RequestClient from "twilio/lib/base/RequestClient.js";

/**
 * The one Twilio REST client of the app, built per request from a user's own Account SID and
 * Auth Token (each customer pays for their own numbers and calls). Every call goes through the
 * official `twilio` package; `TWILIO_API_BASE` only swaps scheme, host and an optional path
 * prefix, so tests (a fake Twilio on loopback) and self-hosters behind a proxy use the same code.
 */

export interface TwilioCredentials {
  accountSid: string;
  authToken: string;
}

/** Twilio refused (its own status, code and message) or could not be reached (status 0). */
export class TwilioError extends Error {
  constructor(
    /** Twilio's HTTP status, or 0 when no answer came. */
    readonly status: number,
    /** Twilio's error code (e.g. 20003 bad credentials, 20404 not found), when it gave one. */
    readonly code: number | null,
    message: string,
    readonly moreInfo: string | null = null,
  ) {
    super(message);
  }
  get isAuthFailure() {
    return this.status === 401 || this.code === 20003;
  }
  get isNotFound() {
    return this.status === 404 || this.code === 20404;
  }
}

export interface TwilioAccount {
  sid: string;
  friendlyName: string;
  /** "active" | "suspended" | "closed" */
  status: string;
  type: string;
}

export interface AvailableNumber {
  phoneNumber: string;
  friendlyName: string;
  locality: string | null;
  region: string | null;
  isoCountry: string;
}

export interface IncomingNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  voiceUrl: string | null;
  statusCallback: string | null;
}

export interface NumberWebhooks {
  voiceUrl: string;
  statusCallback: string;
  friendlyName?: string;
}

export interface TwilioRest {
  fetchAccount(): Promise<TwilioAccount>;
  /** Local numbers that can take voice calls, first `limit` of Twilio's list. */
  searchLocalVoiceNumbers(countryCode: string, limit?: number): Promise<AvailableNumber[]>;
  /** Buys the number with its voice webhook (POST) and status callback (POST) set. */
  purchaseNumber(phoneNumber: string, webhooks: NumberWebhooks): Promise<IncomingNumber>;
  updateNumber(numberSid: string, webhooks: NumberWebhooks): Promise<IncomingNumber>;
  /** Releases the number back to Twilio; it stops ringing here at once. */
  releaseNumber(numberSid: string): Promise<void>;
  /** Replaces a live call's TwiML (e.g. `<Dial>` for a hand-off to a person). */
  updateCallTwiml(callSid: string, twiml: string): Promise<void>;
  /**
   * A call's status and price (Calls/{sid}.json). Twilio gives `price` as a negative decimal string
   * in `price_unit` some time after the call completes, null until then (protocols §3).
   */
  fetchCall(callSid: string): Promise<{ status: string; price: number | null; priceUnit: string | null }>;
  /** Places an outbound call (Calls.create); Twilio answers with the new call's sid, status "queued". */
  createCall(call: OutboundCallRequest): Promise<{ sid: string; status: string }>;
  /** Ends a call: a live one hangs up (completed), a queued or ringing one is cancelled. */
  endCall(callSid: string): Promise<void>;
}

/** What Calls.create is sent for an outbound call (the API's own field names, twilio-node spelling). */
export interface OutboundCallRequest {
  to: string;
  from: string;
  /** Our voice webhook for this call: Twilio fetches the TwiML from it when the callee answers. */
  url: string;
  statusCallback: string;
  /** With voicemail handling on: Twilio reports a machine once its greeting ends (the beep). */
  machineDetection?: { callback: string };
}

const TWILIO_DEFAULT_BASE = "https://api.twilio.com";
const REQUEST_TIMEOUT_MS = 15_000;

/** twilio-node's own client (Basic auth, form encoding), pointed at `apiBase` when that is not Twilio's. */
class RebasedRequestClient extends twilio.RequestClient {
  constructor(private readonly apiBase: URL) {
    super({ timeout: REQUEST_TIMEOUT_MS });
  }
  override request<TData>(opts: RequestClient.RequestOptions<TData>) {
    const target = new URL(opts.uri);
    const base = this.apiBase;
    const prefix = base.pathname.replace(/\/+$/, "");
    const uri = `${base.protocol}//${base.host}${prefix}${target.pathname}${target.search}`;
    return super.request<TData>({ ...opts, uri });
  }
}

/** One HTTP client (and its keep-alive agent) per API base, shared by every user's requests. */
const httpClients = new Map<string, twilio.RequestClient>();
function httpClientFor(apiBase: string): twilio.RequestClient {
  let client = httpClients.get(apiBase);
  if (!client) {
    client =
      apiBase.replace(/\/+$/, "") === TWILIO_DEFAULT_BASE
        ? new twilio.RequestClient({ timeout: REQUEST_TIMEOUT_MS })
        : new RebasedRequestClient(new URL(apiBase));
    httpClients.set(apiBase, client);
  }
  return client;
}

/** Twilio's errors keep Twilio's own message; a network failure says Twilio could not be reached. */
function asTwilioError(err: unknown): TwilioError {
  if (err instanceof TwilioError) return err;
  if (err instanceof twilio.RestException) {
    return new TwilioError(err.status, err.code ?? null, err.message || `Twilio answered ${err.status}`, err.moreInfo ?? null);
  }
  const e = err as { status?: number; code?: number; title?: string; detail?: string; message?: string };
  // RFC 9457 problem bodies (newer Twilio APIs) come as TwilioServiceException: title + detail.
  if (typeof e?.status === "number" && typeof e.title === "string") {
    return new TwilioError(e.status, typeof e.code === "number" ? e.code : null, e.detail ? `${e.title}: ${e.detail}` : e.title);
  }
  const reason = e?.message ? `: ${e.message}` : "";
  return new TwilioError(0, null, `Twilio could not be reached${reason}`);
}

async function twilioCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw asTwilioError(err);
  }
}

export function createTwilioRest(credentials: TwilioCredentials, apiBase: string): TwilioRest {
  const client = twilio(credentials.accountSid, credentials.authToken, {
    httpClient: httpClientFor(apiBase),
    accountSid: credentials.accountSid,
    // Regions/edges would rewrite the host behind TWILIO_API_BASE's back; the base says where to go.
    edge: undefined,
    region: undefined,
  });

  const toIncoming = (n: { sid: string; phoneNumber: string; friendlyName: string; voiceUrl: string; statusCallback: string }): IncomingNumber => ({
    sid: n.sid,
    phoneNumber: n.phoneNumber,
    friendlyName: n.friendlyName,
    voiceUrl: n.voiceUrl ?? null,
    statusCallback: n.statusCallback ?? null,
  });

  const webhookParams = (w: NumberWebhooks) => ({
    voiceUrl: w.voiceUrl,
    voiceMethod: "POST" as const,
    statusCallback: w.statusCallback,
    statusCallbackMethod: "POST" as const,
    ...(w.friendlyName ? { friendlyName: w.friendlyName.slice(0, 64) } : {}),
  });

  return {
    fetchAccount: () =>
      twilioCall(async () => {
        const a = await client.api.v2010.accounts(credentials.accountSid).fetch();
        return { sid: a.sid, friendlyName: a.friendlyName, status: a.status, type: a.type };
      }),

    searchLocalVoiceNumbers: (countryCode, limit = 5) =>
      twilioCall(async () => {
        const list = await client.availablePhoneNumbers(countryCode).local.list({ voiceEnabled: true, limit, pageSize: limit });
        return list
          .filter((n) => capability(n.capabilities, "voice") !== false)
          .map((n) => ({ phoneNumber: n.phoneNumber, friendlyName: n.friendlyName, locality: n.locality ?? null, region: n.region ?? null, isoCountry: n.isoCountry }));
      }),

    purchaseNumber: (phoneNumber, webhooks) =>
      twilioCall(async () => toIncoming(await client.incomingPhoneNumbers.create({ phoneNumber, ...webhookParams(webhooks) }))),

    updateNumber: (numberSid, webhooks) =>
      twilioCall(async () => toIncoming(await client.incomingPhoneNumbers(numberSid).update(webhookParams(webhooks)))),

    releaseNumber: (numberSid) =>
      twilioCall(async () => {
        await client.incomingPhoneNumbers(numberSid).remove();
      }),

    fetchCall: (callSid) =>
      twilioCall(async () => {
        const call = await client.calls(callSid).fetch();
        const price = call.price === null || call.price === undefined || call.price === "" ? null : Number(call.price);
        return { status: call.status, price: price !== null && Number.isFinite(price) ? price : null, priceUnit: call.priceUnit ?? null };
      }),

    createCall: (call) =>
      twilioCall(async () => {
        const created = await client.calls.create({
          to: call.to,
          from: call.from,
          url: call.url,
          method: "POST",
          statusCallback: call.statusCallback,
          statusCallbackMethod: "POST",
          statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
          ...(call.machineDetection
            ? { machineDetection: "DetectMessageEnd", asyncAmd: "true", asyncAmdStatusCallback: call.machineDetection.callback, asyncAmdStatusCallbackMethod: "POST" }
            : {}),
        });
        return { sid: created.sid, status: created.status };
      }),

    endCall: (callSid) =>
      twilioCall(async () => {
        await client.calls(callSid).update({ status: "completed" });
      }),

    updateCallTwiml: (callSid, twiml) =>
      twilioCall(async () => {
        await client.calls(callSid).update({ twiml });
      }),
  };
}

/** Capability keys come as `voice`/`SMS` in Twilio's JSON but lowercase in twilio-node's types. */
function capability(caps: unknown, name: string): boolean | undefined {
  if (!caps || typeof caps !== "object") return undefined;
  for (const [key, value] of Object.entries(caps)) if (key.toLowerCase() === name) return Boolean(value);
  return undefined;
}

/** The two webhooks a number bought here points at (protocols §3.1, §3.8). */
export function numberWebhooks(publicUrl: string, friendlyName?: string): NumberWebhooks {
  return {
    voiceUrl: `${publicUrl}/telephony/twilio/voice`,
    statusCallback: `${publicUrl}/telephony/twilio/status`,
    ...(friendlyName ? { friendlyName } : {}),
  };
}
