/**
 * The seam between the modules and the carriers that carry phone calls (ADR 057). A module
 * (phone-numbers, outbound, credentials) holds a `Carriers` and picks one by a number's
 * `provider`; it never imports a carrier's client. Each carrier lives in its own folder
 * (carriers/twilio, carriers/sip) and sits above the modules: its runtime takes calls in (webhooks
 * and media streams, or a SIP listener), gives each call's session its audio (`Transport`,
 * voice/seams.ts) and its hand-off to a person (`CallTransfer`, voice/builtins.ts), and records
 * the call through the calls module. What a module asks of a carrier is below.
 */
import type { PhoneCountryCode } from "../../shared/phone-numbers.ts";
import type { Carrier } from "../../shared/sip-trunks.ts";
import type { CallTransfer } from "../voice/builtins.ts";

export type { Carrier, CallTransfer };

/** An organisation's number a call is made from. */
export interface CarrierNumber {
  id: string;
  phoneNumber: string;
  provider: Carrier;
}

export interface PlaceCallRequest {
  organizationId: string;
  /** The call's record, written before dialling: what the carrier's callbacks and runtime find it by. */
  callId: string;
  from: CarrierNumber;
  /** E.164 destination. */
  to: string;
  /** The assistant handles voicemail: report a machine once its greeting is over. */
  machineDetection: boolean;
}

/** How a module places and ends calls. Refusals are `AppError`s in the user's words. */
export interface CarrierCalls {
  /** Refuses (throws) when no call can be placed from `from` now (no credentials, no route); nothing is dialled. */
  assertCanPlace(organizationId: string, from: CarrierNumber): Promise<void>;
  /** Dials; resolves once the carrier has taken the call, with its id for the call (Twilio's CallSid, SIP's Call-ID). */
  place(request: PlaceCallRequest): Promise<{ providerCallId: string }>;
  /** Ends a call: a ringing one is cancelled, a live one hung up. An ended or unknown call is no error. */
  end(organizationId: string, providerCallId: string): Promise<void>;
}

export interface ProvisionRequest {
  countryCode: PhoneCountryCode;
  /** What the carrier's console calls the number (the assistant's name). */
  label: string;
}

/** How numbers come and go. Twilio buys and releases; a SIP trunk's numbers are the customer's own. */
export interface CarrierNumbers {
  /** Gets a new number; a carrier with nothing to buy refuses. */
  provision(organizationId: string, request: ProvisionRequest): Promise<{ phoneNumber: string; providerSid: string }>;
  /** Points the number at this server again under a new label. */
  relink(organizationId: string, providerSid: string, label: string): Promise<void>;
  /** Gives the number back; one the carrier no longer has counts as given back. */
  release(organizationId: string, providerSid: string): Promise<void>;
}

export interface CarrierImpl {
  name: Carrier;
  calls: CarrierCalls;
  numbers: CarrierNumbers;
}

/** Every carrier this server has, by the `provider` of a number (and the `carrier` of a call). */
export type Carriers = Readonly<Record<Carrier, CarrierImpl>>;

/** A carrier account's credentials as Settings stores them: Twilio's Account SID and Auth Token. */
export interface AccountCredentials {
  accountSid: string;
  authToken: string;
}

/** Checks a carrier account's credentials when they are saved, in words for the user. */
export type CredentialCheck = (credentials: AccountCredentials) => Promise<{ verified: boolean; message: string }>;
