/**
 * A SIP line in the real app: a user with an OpenAI key (the fake's), an assistant, a trunk made
 * through the sip-trunks service (passwords sealed as the API would) and a SIP number on it,
 * inserted as the phone-numbers module does; and the app's SIP endpoint started on a free port.
 * `startSipLine` is the three together on a fresh fake OpenAI Realtime server, as most SIP test
 * files begin.
 */
import type { SipTlsConfig } from "../../src/server/config.ts";
import { phoneNumbers } from "../../src/server/db/schema.ts";
import { createSipTrunksService } from "../../src/server/modules/sip-trunks/sip-trunks.service.ts";
import { sipTrunkInputSchema, type SipTrunkUpdate } from "../../src/shared/sip-trunks.ts";
import { startFakeRealtime } from "./fake-realtime.ts";
import { createAssistant, signUpCaller, type Caller } from "./realtime-app.ts";
import { startPhoneApp, type PhoneApp } from "./twilio-app.ts";

export type SipLine = Awaited<ReturnType<typeof sipLine>>;

export async function sipLine(app: PhoneApp, apiKey: string, number: string, trunk: Record<string, unknown>, assistant: Record<string, unknown> = {}) {
  const owner = await signUpCaller(app.app, apiKey);
  const assistantId = (await createAssistant(app.app, owner, assistant)).id;
  return { owner, assistantId, ...(await addSipNumber(app, owner, number, trunk, assistantId)) };
}

/** A trunk made through the sip-trunks service and `number` on it, answered by `assistantId`. */
export async function addSipNumber(app: PhoneApp, owner: Caller, number: string, trunk: Record<string, unknown>, assistantId: string) {
  const trunks = createSipTrunksService({ db: app.db, secrets: app.app.ctx.secrets, sip: app.app.ctx.config.sip });
  const created = await trunks.create(owner.organizationId, sipTrunkInputSchema.parse({ name: "Office PBX", ...trunk }));
  const [row] = await app.db
    .insert(phoneNumbers)
    .values({ organizationId: owner.organizationId, phoneNumber: number, provider: "sip", sipTrunkId: created.id, status: "active", assistantId })
    .returning({ id: phoneNumbers.id });
  return {
    numberId: row!.id,
    trunkId: created.id,
    /** Changes the trunk as PATCH /api/sip-trunks/:id would. */
    updateTrunk: (patch: SipTrunkUpdate) => trunks.update(owner.organizationId, created.id, patch),
  };
}

/** Starts the app's SIP endpoint as main.ts does, on a free port (and TLS on another, given `tls`); returns the port. */
export async function startSip(app: PhoneApp, rtpPorts: { min: number; max: number }, tls?: SipTlsConfig): Promise<number> {
  const { rtpTimeoutSeconds } = app.app.ctx.config.sip;
  if (!(await app.app.sip.start({ host: "127.0.0.1", port: 0, publicAddress: "127.0.0.1", rtpPorts, rtpTimeoutSeconds, tls }))) throw new Error("SIP did not start");
  return app.app.sip.port!;
}

/** The fake Realtime server (`apiKey`), the app on it (`config`), one SIP line, and SIP started; `target` is where SIPp dials. */
export async function startSipLine(o: { apiKey: string; number: string; trunk?: Record<string, unknown>; assistant?: Record<string, unknown>; config?: Record<string, string>; rtpPorts: { min: number; max: number } }) {
  const fake = await startFakeRealtime({ apiKey: o.apiKey });
  const app = await startPhoneApp(fake, o.config);
  const line = await sipLine(app, fake.apiKey, o.number, o.trunk ?? {}, o.assistant);
  const port = await startSip(app, o.rtpPorts);
  return { fake, app, line, port, target: `127.0.0.1:${port}` };
}
