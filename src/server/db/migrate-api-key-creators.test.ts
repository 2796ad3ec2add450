import { describe, expect, it } from "vitest";
import { useDatabaseBefore } from "../../../tests/migrations.ts";

/**
 * Upgrading a server whose API keys had no creator: each key then acts for its organisation's
 * first owner (the oldest owner membership), and leaves with that membership; a key of an
 * organisation with no owner left has nobody to act for and goes.
 */
const { client, migrateToTag, upgrade } = useDatabaseBefore("0021_campaign_pacing");

describe("the API key creators migration", () => {
  it("gives every key its organisation's first owner, and a key goes with its creator's membership", { timeout: 120_000 }, async () => {
    await migrateToTag();
    await client.exec(`
      INSERT INTO "user" (id, name, email) VALUES
        ('u-ann', 'Ann', 'ann@example.com'), ('u-olga', 'Olga', 'olga@example.com'),
        ('u-oscar', 'Oscar', 'oscar@example.com'), ('u-zed', 'Zed', 'zed@example.com');
      INSERT INTO organization (id, name, slug) VALUES ('o-acme', 'Acme', 'o-acme'), ('o-orphan', 'Orphan', 'o-orphan');
      -- Ann joined Acme first but is an admin; Olga became an owner before Oscar.
      INSERT INTO member (id, organization_id, user_id, role, created_at) VALUES
        ('m1', 'o-acme', 'u-ann', 'admin', '2026-01-01T00:00:00Z'),
        ('m2', 'o-acme', 'u-oscar', 'owner', '2026-03-01T00:00:00Z'),
        ('m3', 'o-acme', 'u-olga', 'owner', '2026-02-01T00:00:00Z'),
        ('m4', 'o-orphan', 'u-zed', 'admin', '2026-01-01T00:00:00Z');
      INSERT INTO api_keys (id, organization_id, name, prefix, key_hash) VALUES
        ('00000000-0000-4000-8000-0000000000a1', 'o-acme', 'CRM', 'sk_aaaaa', 'hash-1'),
        ('00000000-0000-4000-8000-0000000000a2', 'o-acme', 'Zapier', 'sk_bbbbb', 'hash-2'),
        ('00000000-0000-4000-8000-0000000000b1', 'o-orphan', 'Lost', 'sk_ccccc', 'hash-3');
      INSERT INTO audit_log (organization_id, actor_name, via, action) VALUES ('o-acme', 'API key CRM', 'api_key', 'assistant.created');
    `);

    await upgrade();

    const rows = async (sql: string) => (await client.query(sql)).rows;
    expect(await rows(`SELECT name, created_by FROM api_keys ORDER BY name`)).toEqual([
      { name: "CRM", created_by: "u-olga" },
      { name: "Zapier", created_by: "u-olga" },
    ]);
    // Entries written before keep what they said; they name no key.
    expect(await rows(`SELECT actor_name, actor_api_key_id FROM audit_log`)).toEqual([{ actor_name: "API key CRM", actor_api_key_id: null }]);
    // Every key has a creator from now on.
    await expect(client.exec(`INSERT INTO api_keys (organization_id, name, prefix, key_hash) VALUES ('o-acme', 'New', 'sk_ddddd', 'hash-4')`)).rejects.toThrow(/created_by/);
    // Removing Olga from Acme takes the keys that act for her (Oscar, another owner, keeps none of them).
    await client.exec(`DELETE FROM member WHERE id = 'm3'`);
    expect(await rows(`SELECT count(*)::int AS n FROM api_keys`)).toEqual([{ n: 0 }]);
  });
});
