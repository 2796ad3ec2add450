import { isUuid } from "../../../shared/ids.ts";
import {
  MAX_PROVIDERS,
  PROVIDER_MESSAGES,
  providerBaseUrl,
  type Provider,
  type ProviderInput,
  type ProviderKind,
  type ProviderProtocol,
  type ProviderUpdate,
  type VoicePreview,
} from "../../../shared/providers.ts";
import type { Db } from "../../db/client.ts";
import { insertWithinLimit, withOrganizationLock } from "../../db/organization-lock.ts";
import { AppError, badRequest, notFound } from "../../errors.ts";
import { maskSecret, type SecretBox } from "../../secrets/crypto.ts";
import { isHostAllowed } from "../../tools/ssrf-guard.ts";
import { keyRefusal } from "./key-check.ts";
import * as repo from "./providers.repo.ts";
import { ServiceError } from "../../voice/pipeline/service-error.ts";
import { createVoice } from "../../voice/pipeline/voice.ts";
import { pcmWav } from "./wav.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { mapPage } from "../../http/pages.ts";

/** How long a preview may take before the service is given up on. */
const PREVIEW_TIMEOUT_MS = 15_000;

export interface ProvidersServiceDeps {
  db: Db;
  secrets: SecretBox;
  /** Hosts reachable over plain http (TOOL_ALLOWED_HOSTS: a self-hosted model or voice on the private network). */
  allowedHosts: readonly string[];
}

/** What a call needs of a provider: where it is and its key, opened. */
export interface CallProvider {
  id: string;
  name: string;
  kind: ProviderKind;
  protocol: ProviderProtocol;
  baseUrl: string;
  apiKey: string;
  /** The provider's own unit price; null: list price. */
  unitPrice: number | null;
}

/** Sealed under another APP_SECRET: entering the key again is the only fix. */
export const providerKeyUnreadable = (name: string) =>
  new AppError(409, "credential_unreadable", `The key of provider “${name}” can no longer be read (the server's secret changed). Enter it again in Settings → Providers.`);

export function createProvidersService({ db, secrets, allowedHosts }: ProvidersServiceDeps) {
  const open = (row: repo.ProviderRow): string => {
    try {
      return secrets.decrypt(row.apiKeyEncrypted);
    } catch {
      throw providerKeyUnreadable(row.name);
    }
  };

  const toView = (row: repo.ProviderRow): Provider => {
    let hint: string;
    try {
      hint = maskSecret(secrets.decrypt(row.apiKeyEncrypted));
    } catch {
      hint = "••••";
    }
    return {
      id: row.id,
      name: row.name,
      kind: row.kind,
      protocol: row.protocol,
      base_url: row.baseUrl,
      api_key_hint: hint,
      unit_price: row.unitPrice,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  };

  /** Plain http only to allow-listed hosts: keys must not cross the internet in the clear. */
  const checkBaseUrl = (baseUrl: string | null | undefined) => {
    if (!baseUrl) return;
    const url = new URL(baseUrl);
    if (url.protocol === "https:") return;
    const port = url.port ? Number(url.port) : 80;
    if (!isHostAllowed(allowedHosts, url.hostname, port)) throw badRequest(PROVIDER_MESSAGES.baseUrlNotHttps(url.host), "validation_error");
  };

  /** The service is asked whether it takes the key before anything is stored. */
  const checkKey = async (protocol: ProviderProtocol, baseUrl: string | null, key: string) => {
    const refused = await keyRefusal(protocol, providerBaseUrl({ protocol, base_url: baseUrl }), key, allowedHosts);
    if (refused !== null) throw badRequest(PROVIDER_MESSAGES.keyRefused(protocol, refused), "provider_key_refused");
  };

  async function findOr404(organizationId: string, id: string): Promise<repo.ProviderRow> {
    const row = isUuid(id) ? await repo.findProvider(db, organizationId, id) : null;
    if (!row) throw notFound("Provider");
    return row;
  }

  return {
    async page(organizationId: string, query: PageQuery): Promise<Page<Provider>> {
      return mapPage(await repo.pageProviders(db, organizationId, query), (rows) => rows.map(toView));
    },

    async get(organizationId: string, id: string): Promise<Provider> {
      return toView(await findOr404(organizationId, id));
    },

    /** For the audit log's names: null when not found. */
    async find(organizationId: string, id: string): Promise<{ id: string; name: string } | null> {
      const row = isUuid(id) ? await repo.findProvider(db, organizationId, id) : null;
      return row ? { id: row.id, name: row.name } : null;
    },

    async create(organizationId: string, input: ProviderInput): Promise<Provider> {
      checkBaseUrl(input.base_url);
      await checkKey(input.protocol, input.base_url, input.api_key);
      const values: repo.ProviderValues = {
        name: input.name,
        kind: input.kind,
        protocol: input.protocol,
        baseUrl: input.base_url,
        apiKeyEncrypted: secrets.encrypt(input.api_key),
        unitPrice: input.unit_price,
      };
      const row = await insertWithinLimit(
        db,
        { organizationId, purpose: "providers", limit: MAX_PROVIDERS },
        (tx) => repo.countProviders(tx, organizationId),
        (tx) => repo.insertProvider(tx, organizationId, values),
      );
      if (!row) throw new AppError(409, "too_many_providers", PROVIDER_MESSAGES.tooMany);
      return toView(row);
    },

    /** What is sent changes; a key left out stays as saved. */
    async update(organizationId: string, id: string, patch: ProviderUpdate): Promise<Provider> {
      const current = await findOr404(organizationId, id);
      checkBaseUrl(patch.base_url);
      // A new key or a new address is checked; a rename alone is not.
      if (patch.api_key !== undefined || patch.base_url !== undefined) {
        await checkKey(current.protocol, patch.base_url !== undefined ? patch.base_url || null : current.baseUrl, patch.api_key ?? open(current));
      }
      const values: Partial<repo.ProviderValues> = {};
      if (patch.name !== undefined) values.name = patch.name;
      if (patch.base_url !== undefined) values.baseUrl = patch.base_url || null;
      if (patch.unit_price !== undefined) values.unitPrice = patch.unit_price;
      if (patch.api_key !== undefined) values.apiKeyEncrypted = secrets.encrypt(patch.api_key);
      const row = Object.keys(values).length > 0 ? await repo.updateProvider(db, organizationId, id, values) : await repo.findProvider(db, organizationId, id);
      if (!row) throw notFound("Provider");
      return toView(row);
    },

    /** Refused (409, naming them) while an assistant's draft uses it: its calls would have no service. */
    async remove(organizationId: string, id: string): Promise<void> {
      if (!isUuid(id)) throw notFound("Provider");
      await withOrganizationLock(db, organizationId, "providers-in-use", async (tx) => {
        const users = await repo.assistantsUsing(tx, organizationId, id);
        if (users.length > 0) throw new AppError(409, "provider_in_use", PROVIDER_MESSAGES.inUse(users.join(", ")));
        if (!(await repo.deleteProvider(tx, organizationId, id))) throw notFound("Provider");
      });
    },

    /** The kind and protocol of each of `ids`, of those the organisation has (the assistant form's check). */
    async kindsOf(organizationId: string, ids: string[]): Promise<Map<string, { kind: ProviderKind; protocol: ProviderProtocol }>> {
      const out = new Map<string, { kind: ProviderKind; protocol: ProviderProtocol }>();
      for (const id of new Set(ids)) {
        const row = isUuid(id) ? await repo.findProvider(db, organizationId, id) : null;
        if (row) out.set(id, { kind: row.kind, protocol: row.protocol });
      }
      return out;
    },

    /** A short sample in a voice provider's `voice`, as a WAV file (16-bit PCM, 24 kHz). */
    async preview(organizationId: string, id: string, input: VoicePreview): Promise<Buffer> {
      const row = await findOr404(organizationId, id);
      if (row.kind !== "voice") throw badRequest(PROVIDER_MESSAGES.previewNotVoice);
      const protocol = row.protocol === "cartesia" || row.protocol === "openai-speech" ? row.protocol : "elevenlabs";
      const voice = createVoice({ protocol, baseUrl: providerBaseUrl({ protocol: row.protocol, base_url: row.baseUrl }), apiKey: open(row), voice: input.voice, model: input.model, format: "audio/pcm" });
      const chunks: Uint8Array[] = [];
      try {
        await voice.speak(input.text, AbortSignal.timeout(PREVIEW_TIMEOUT_MS), (bytes) => chunks.push(bytes));
      } catch (err) {
        // The service's refusal is the user's to fix (a key, a voice id): a 4xx in its words.
        const detail = err instanceof ServiceError ? err.message : err instanceof Error && err.name === "TimeoutError" ? "it did not answer in time" : "it could not be reached";
        throw new AppError(422, "voice_preview_failed", PROVIDER_MESSAGES.previewFailed(detail));
      } finally {
        voice.close();
      }
      return pcmWav(Buffer.concat(chunks), 24_000);
    },

    /** A provider as a call uses it, key opened; null when it is gone. Throws 409 when the key is unreadable. */
    async forCall(organizationId: string, id: string): Promise<CallProvider | null> {
      const row = isUuid(id) ? await repo.findProvider(db, organizationId, id) : null;
      if (!row) return null;
      return { id: row.id, name: row.name, kind: row.kind, protocol: row.protocol, baseUrl: providerBaseUrl({ protocol: row.protocol, base_url: row.baseUrl }), apiKey: open(row), unitPrice: row.unitPrice };
    },
  };
}

export type ProvidersService = ReturnType<typeof createProvidersService>;
