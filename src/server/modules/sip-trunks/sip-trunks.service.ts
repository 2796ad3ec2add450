import { isUuid } from "../../../shared/ids.ts";
import {
  MAX_SIP_TRUNKS,
  SIP_TRUNK_MESSAGES,
  sipTrunkProblem,
  type SipListener,
  type SipRegistrationState,
  type SipTransferMethod,
  type SipTransport,
  type SipTrunk,
  type SipTrunkInput,
  type SipTrunkUpdate,
} from "../../../shared/sip-trunks.ts";
import type { SipConfig } from "../../config.ts";
import type { Db } from "../../db/client.ts";
import { withOrganizationLock, insertWithinLimit } from "../../db/organization-lock.ts";
import { isForeignKeyViolation } from "../../db/pg-errors.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import type { SecretBox } from "../../secrets/crypto.ts";
import * as repo from "./sip-trunks.repo.ts";
import { mapPage } from "../../http/pages.ts";
import type { ResourceService } from "../../http/resource-routes.ts";

export interface SipCredentials {
  username: string;
  password: string;
}

/** A SIP number an INVITE's Request-URI may mean, with what its trunk accepts calls from. */
export interface InboundCandidate {
  organizationId: string;
  phoneNumberId: string;
  phoneNumber: string;
  assistantId: string | null;
  assistantVersion: number | null;
  trunk: {
    id: string;
    name: string;
    /** IPs and CIDR ranges (v4 and v6) calls may come from. */
    inboundAddresses: string[];
    /** The digest credentials a caller may answer with; null: none (or not readable under this APP_SECRET). */
    inboundCredentials: SipCredentials | null;
  };
}

/** How to dial out through a trunk. */
export interface OutboundRoute {
  trunkId: string;
  organizationId: string;
  uri: string;
  credentials: SipCredentials | null;
  /** E.164 to present; null: the calling number's own. */
  callerId: string | null;
  prefix: string | null;
  transport: SipTransport;
  /** How a transfer leaves a call on this trunk (REFER first, or bridged here). */
  transferMethod: SipTransferMethod;
  /** The SIP number the call is made from. */
  phoneNumber: string;
  /** The number's own assistant and pinned version: a call made with that assistant runs that version. */
  assistantId: string | null;
  assistantVersion: number | null;
}

/** A trunk the runtime keeps registered at its registrar. */
export interface RegistrationTarget {
  trunkId: string;
  organizationId: string;
  uri: string;
  credentials: SipCredentials | null;
  expires: number;
  transport: SipTransport;
}

/** What the runtime writes back about a trunk (ISO strings or Dates; null clears). */
export interface SipTrunkStatePatch {
  lastOptionsAt?: Date | null;
  registrationState?: SipRegistrationState;
  registrationStateAt?: Date | null;
  lastError?: string | null;
  lastErrorAt?: Date | null;
}

/** `remove` is refused (409, naming them) while numbers are on the trunk. */
export interface SipTrunksService extends ResourceService<SipTrunk, SipTrunk, SipTrunkInput, SipTrunkUpdate> {
  /** The trunk's id and name when it is the organisation's (for linking a number), else null. */
  find(organizationId: string, id: string): Promise<{ id: string; name: string } | null>;
  listener(): SipListener;

  // ── For the SIP runtime only (no routes): across organisations, secrets opened ──
  inboundCandidates(toUser: string): Promise<InboundCandidate[]>;
  outboundRoute(organizationId: string, phoneNumberId: string): Promise<OutboundRoute | null>;
  trunksToRegister(): Promise<RegistrationTarget[]>;
  /** Where each trunk sends from: its source addresses, and its outbound URI (whose host may send too). */
  trunkSources(): Promise<{ trunkId: string; addresses: string[]; outboundUri: string | null }[]>;
  recordState(trunkId: string, patch: SipTrunkStatePatch): Promise<void>;
}

export interface SipTrunksDeps {
  db: Db;
  secrets: SecretBox;
  sip: SipConfig;
  /** Whether the listener is up, and on which transports (the SIP runtime knows); the configuration otherwise. */
  listenerStatus?: () => { enabled: boolean; port: number; tlsPort: number | null; transports: SipTransport[] };
  logger?: { warn(obj: object, msg: string): void };
  /** Told after a trunk is added, changed or deleted: the SIP runtime registers or un-registers at once. */
  onChange?: () => void;
}

/** How many numbers one Request-URI may match (different organisations may share an extension). */
const MAX_CANDIDATES = 20;
const MAX_PREFIX = 10;
/** A Request-URI user worth a lookup: digits with an optional '+' (anything else is no number of ours). */
const DIALLED = /^\+?[0-9*#]{2,25}$/;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function createSipTrunksService(deps: SipTrunksDeps): SipTrunksService {
  const { db, secrets } = deps;

  const seal = (password: string | null | undefined) => (password ? secrets.encrypt(password) : null);

  /** A password sealed under another APP_SECRET opens as nothing: the trunk then has no credentials. */
  function open(trunkId: string, sealed: string | null): string | null {
    if (!sealed) return null;
    try {
      return secrets.decrypt(sealed);
    } catch {
      deps.logger?.warn({ trunkId }, "a SIP trunk password could not be opened (another APP_SECRET?)");
      return null;
    }
  }

  function credentials(trunkId: string, username: string | null, sealed: string | null): SipCredentials | null {
    const password = open(trunkId, sealed);
    return username && password !== null ? { username, password } : null;
  }

  async function views(organizationId: string, rows: repo.SipTrunkRow[]): Promise<SipTrunk[]> {
    const numbers = await repo.numbersOnTrunks(db, organizationId, rows.map((r) => r.id));
    return rows.map((row) => toView(row, numbers.filter((n) => n.sipTrunkId === row.id)));
  }

  async function findOr404(organizationId: string, id: string): Promise<repo.SipTrunkRow> {
    const row = isUuid(id) ? await repo.findTrunk(db, organizationId, id) : null;
    if (!row) throw notFound("SIP trunk");
    return row;
  }

  function check(shape: Parameters<typeof sipTrunkProblem>[0]) {
    const problem = sipTrunkProblem(shape);
    if (problem) throw badRequest(problem.message, "invalid_sip_trunk");
  }

  async function refuseInUse(organizationId: string, id: string, tx: Db = db) {
    const numbers = await repo.numbersOnTrunks(tx, organizationId, [id]);
    if (numbers.length > 0) throw new AppError(409, "sip_trunk_in_use", SIP_TRUNK_MESSAGES.inUse(numbers.map((n) => n.phoneNumber)));
  }

  return {
    async page(organizationId, query) {
      return mapPage(await repo.pageTrunks(db, organizationId, query), (rows) => views(organizationId, rows));
    },

    async get(organizationId, id) {
      return (await views(organizationId, [await findOr404(organizationId, id)]))[0]!;
    },

    async find(organizationId, id) {
      const row = isUuid(id) ? await repo.findTrunk(db, organizationId, id) : null;
      return row ? { id: row.id, name: row.name } : null;
    },

    async create(organizationId, input) {
      check({ ...input, inbound_username: input.inbound_username ?? null, outbound_uri: input.outbound_uri ?? null, outbound_username: input.outbound_username ?? null, has_inbound_password: !!input.inbound_password, has_outbound_password: !!input.outbound_password });
      const values: repo.SipTrunkValues = {
        name: input.name,
        inboundAddresses: input.inbound_addresses,
        inboundUsername: input.inbound_username ?? null,
        inboundPasswordEncrypted: seal(input.inbound_password),
        outboundUri: input.outbound_uri ?? null,
        outboundUsername: input.outbound_username ?? null,
        outboundPasswordEncrypted: seal(input.outbound_password),
        register: input.register,
        registerExpires: input.register_expires,
        callerId: input.caller_id ?? null,
        prefix: input.prefix ?? null,
        transport: input.transport,
        transferMethod: input.transfer_method,
      };
      const row = await insertWithinLimit(
        db,
        { organizationId, purpose: "sip-trunks", limit: MAX_SIP_TRUNKS },
        (tx) => repo.countTrunks(tx, organizationId),
        (tx) => repo.insertTrunk(tx, organizationId, values),
      );
      if (!row) throw new AppError(409, "too_many_sip_trunks", SIP_TRUNK_MESSAGES.tooMany);
      deps.onChange?.();
      return toView(row, []);
    },

    /** What is sent changes; the whole is checked as it will be saved. A password left out stays. */
    async update(organizationId, id, patch) {
      const current = await findOr404(organizationId, id);
      const values: Partial<repo.SipTrunkValues> = {};
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.inbound_addresses !== undefined) values.inboundAddresses = patch.inbound_addresses;
      if (patch.inbound_username !== undefined) values.inboundUsername = patch.inbound_username;
      if (patch.inbound_password !== undefined) values.inboundPasswordEncrypted = seal(patch.inbound_password);
      if (patch.outbound_uri !== undefined) values.outboundUri = patch.outbound_uri;
      if (patch.outbound_username !== undefined) values.outboundUsername = patch.outbound_username;
      if (patch.outbound_password !== undefined) values.outboundPasswordEncrypted = seal(patch.outbound_password);
      if (patch.register !== undefined) values.register = patch.register;
      if (patch.register_expires !== undefined) values.registerExpires = patch.register_expires;
      if (patch.caller_id !== undefined) values.callerId = patch.caller_id;
      if (patch.prefix !== undefined) values.prefix = patch.prefix;
      if (patch.transport !== undefined) values.transport = patch.transport;
      if (patch.transfer_method !== undefined) values.transferMethod = patch.transfer_method;
      const next = { ...current, ...values };
      check(shapeOf(next));
      // A registration stopped is no longer anything the runtime keeps up.
      if (values.register === false) {
        values.registrationState = "unregistered";
        values.registrationStateAt = new Date();
      }
      const row = await repo.updateTrunk(db, organizationId, id, values);
      if (!row) throw notFound("SIP trunk");
      deps.onChange?.();
      return (await views(organizationId, [row]))[0]!;
    },

    async remove(organizationId, id) {
      await findOr404(organizationId, id);
      try {
        await withOrganizationLock(db, organizationId, "sip-trunk-numbers", async (tx) => {
          await refuseInUse(organizationId, id, tx);
          if (!(await repo.deleteTrunk(tx, organizationId, id))) throw notFound("SIP trunk");
        });
      } catch (err) {
        // A number was linked between the check and the delete: the foreign key refused it.
        if (isForeignKeyViolation(err)) await refuseInUse(organizationId, id);
        throw err;
      }
      deps.onChange?.();
    },

    listener() {
      const configured: SipTransport[] = deps.sip.tls ? ["udp", "tcp", "tls"] : ["udp", "tcp"];
      const status = deps.listenerStatus?.() ?? { enabled: deps.sip.enabled, port: deps.sip.port, tlsPort: deps.sip.tls?.port ?? null, transports: configured };
      return { enabled: status.enabled, public_address: deps.sip.publicAddress, port: status.port, tls_port: status.tlsPort, transports: status.transports };
    },

    async inboundCandidates(toUser) {
      const user = toUser.trim();
      if (!DIALLED.test(user)) return [];
      const rows = await repo.candidatesFor(db, user.replace(/^\+/, ""), MAX_CANDIDATES, MAX_PREFIX);
      return rows.map((r) => ({
        organizationId: r.organizationId,
        phoneNumberId: r.numberId,
        phoneNumber: r.phoneNumber,
        assistantId: r.assistantId,
        assistantVersion: r.assistantVersion,
        trunk: {
          id: r.trunk.id,
          name: r.trunk.name,
          inboundAddresses: r.trunk.inboundAddresses,
          inboundCredentials: credentials(r.trunk.id, r.trunk.inboundUsername, r.trunk.inboundPasswordEncrypted),
        },
      }));
    },

    async outboundRoute(organizationId, phoneNumberId) {
      const found = isUuid(phoneNumberId) ? await repo.routeFor(db, organizationId, phoneNumberId) : null;
      if (!found?.trunk.outboundUri) return null;
      const { trunk } = found;
      return {
        trunkId: trunk.id,
        organizationId,
        uri: trunk.outboundUri!,
        credentials: credentials(trunk.id, trunk.outboundUsername, trunk.outboundPasswordEncrypted),
        callerId: trunk.callerId,
        prefix: trunk.prefix,
        transport: trunk.transport,
        transferMethod: trunk.transferMethod,
        phoneNumber: found.phoneNumber,
        assistantId: found.assistantId,
        assistantVersion: found.assistantVersion,
      };
    },

    async trunksToRegister() {
      return (await repo.trunksToRegister(db))
        .filter((t) => t.outboundUri)
        .map((t) => ({
          trunkId: t.id,
          organizationId: t.organizationId,
          uri: t.outboundUri!,
          credentials: credentials(t.id, t.outboundUsername, t.outboundPasswordEncrypted),
          expires: t.registerExpires,
          transport: t.transport,
        }));
    },

    async trunkSources() {
      return (await repo.trunkSources(db)).map((t) => ({ trunkId: t.id, addresses: t.inboundAddresses, outboundUri: t.outboundUri }));
    },

    async recordState(trunkId, patch) {
      if (!isUuid(trunkId)) return;
      await repo.recordState(db, trunkId, patch);
    },
  };
}

/** What sipTrunkProblem checks, as a stored (or about to be stored) trunk has it; the view shows the same. */
function shapeOf(row: Pick<repo.SipTrunkRow, "inboundUsername" | "inboundPasswordEncrypted" | "outboundUri" | "outboundUsername" | "outboundPasswordEncrypted" | "register">) {
  return {
    inbound_username: row.inboundUsername,
    has_inbound_password: row.inboundPasswordEncrypted !== null,
    outbound_uri: row.outboundUri,
    outbound_username: row.outboundUsername,
    has_outbound_password: row.outboundPasswordEncrypted !== null,
    register: row.register,
  };
}

function toView(row: repo.SipTrunkRow, numbers: { id: string; phoneNumber: string }[]): SipTrunk {
  return {
    id: row.id,
    name: row.name,
    inbound_addresses: row.inboundAddresses,
    ...shapeOf(row),
    register_expires: row.registerExpires,
    caller_id: row.callerId,
    prefix: row.prefix,
    transport: row.transport,
    transfer_method: row.transferMethod,
    last_options_at: iso(row.lastOptionsAt),
    registration_state: row.registrationState,
    registration_state_at: iso(row.registrationStateAt),
    last_error: row.lastError,
    last_error_at: iso(row.lastErrorAt),
    numbers: numbers.map((n) => ({ id: n.id, phone_number: n.phoneNumber })),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
