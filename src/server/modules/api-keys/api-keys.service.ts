/**
 * API keys: `sk_` + 40 base62 characters from the CSPRNG, stored only as a SHA-256 hash (a key
 * has 238 bits of entropy, so an unsalted fast hash is enough: nothing to brute-force). The key
 * is answered once, on creation, and never logged (log-redaction drops the Authorization header).
 */
import { createHash, randomInt } from "node:crypto";
import { API_KEY_MESSAGES, API_KEY_RANDOM_LENGTH, MAX_API_KEYS, type ApiKey, type ApiKeyInput, type CreatedApiKey } from "../../../shared/api-keys.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { Role } from "../../../shared/roles.ts";
import type { Db } from "../../db/client.ts";
import { insertWithinLimit } from "../../db/organization-lock.ts";
import { AppError, notFound } from "../../errors.ts";
import * as repo from "./api-keys.repo.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { mapPage } from "../../http/pages.ts";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const API_KEY_PATTERN = /^sk_[0-9A-Za-z]{32,}$/;

const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

function newKey(): string {
  let out = "sk_";
  for (let i = 0; i < API_KEY_RANDOM_LENGTH; i++) out += BASE62[randomInt(62)];
  return out;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Who a key acts for, as their membership reads now. */
export interface KeyHolder {
  keyId: string;
  keyName: string;
  organizationId: string;
  userId: string;
  /** The creator's current role: the most the key may do. */
  role: Role;
  /** The creator's name (or e-mail when they have none), for the audit log. */
  userName: string;
}

export interface ApiKeysService {
  list(organizationId: string): Promise<ApiKey[]>;
  /** A page of them, newest first (src/shared/pages.ts). */
  page(organizationId: string, query: PageQuery): Promise<Page<ApiKey>>;
  /** A key made by `creator` (a signed-in member) in their organisation: it acts for them. */
  create(creator: { organizationId: string; userId: string }, input: ApiKeyInput): Promise<CreatedApiKey>;
  revoke(organizationId: string, id: string): Promise<void>;
  /** Who the key acts for, or null for a wrong, revoked or expired key, or one whose creator has left. */
  authenticate(key: string): Promise<KeyHolder | null>;
}

export function createApiKeysService(deps: { db: Db }): ApiKeysService {
  const { db } = deps;
  return {
    async page(organizationId, query) {
      return mapPage(await repo.pageLiveKeys(db, organizationId, query), (rows) => rows.map(toApiKey));
    },

    async list(organizationId) {
      return (await repo.listLiveKeys(db, organizationId)).map(toApiKey);
    },

    async create({ organizationId, userId }, input) {
      const key = newKey();
      const values = {
        organizationId,
        createdBy: userId,
        name: input.name,
        prefix: key.slice(0, 8),
        keyHash: hashKey(key),
        expiresAt: input.expires_at ? new Date(input.expires_at) : null,
      };
      const row = await insertWithinLimit(
        db,
        { organizationId, purpose: "api-keys", limit: MAX_API_KEYS },
        (tx) => repo.countLiveKeys(tx, organizationId),
        (tx) => repo.insertKey(tx, values),
      );
      if (!row) throw new AppError(409, "too_many_api_keys", API_KEY_MESSAGES.tooMany);
      return { id: row.id, name: row.name, key, prefix: row.prefix, created_at: row.createdAt.toISOString(), expires_at: iso(row.expiresAt) };
    },

    async revoke(organizationId, id) {
      if (!isUuid(id) || !(await repo.revokeKey(db, organizationId, id))) throw notFound("API key");
    },

    async authenticate(key) {
      if (!API_KEY_PATTERN.test(key)) return null;
      const found = await repo.findByHash(db, hashKey(key));
      if (!found) return null;
      if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > 60_000) void repo.touchKey(db, found.id).catch(() => undefined);
      return {
        keyId: found.id,
        keyName: found.name,
        organizationId: found.organizationId,
        userId: found.userId,
        role: found.role,
        userName: found.userName.trim() || found.userEmail,
      };
    },
  };
}

function toApiKey(row: repo.ApiKeyRow & { creatorName: string }): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_by_user_id: row.createdBy,
    created_by_name: row.creatorName,
    created_at: row.createdAt.toISOString(),
    last_used_at: iso(row.lastUsedAt),
    expires_at: iso(row.expiresAt),
  };
}
