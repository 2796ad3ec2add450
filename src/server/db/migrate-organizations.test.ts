import { describe, expect, it } from "vitest";
import { useDatabaseBefore } from "../../../tests/migrations.ts";

/**
 * Upgrading a server from before teams: each user becomes the owner of "<name>'s team", which
 * takes their id, and every row they had moves to it; nothing is lost.
 */
const { client, migrateToTag, upgrade } = useDatabaseBefore("0011_outbound_calls");

describe("the organisations migration", () => {
  it("moves each user's data into a team of their own, with them as its owner", { timeout: 120_000 }, async () => {
    await migrateToTag();
    await client.exec(`
      INSERT INTO "user" (id, name, email) VALUES ('u-ada', 'Ada', 'ada@example.com'), ('u-bob', 'Bob O''Brien', 'bob@example.com');
      INSERT INTO assistants (id, user_id, name, model) VALUES ('00000000-0000-4000-8000-00000000000a', 'u-ada', 'Desk', 'gpt-realtime');
      INSERT INTO tools (user_id, name, type, http_method, parameter_format, end_point_url) VALUES ('u-bob', 'Lookup', 'API', 'GET', 'standard', 'https://example.com');
      INSERT INTO calls (user_id, assistant_id, assistant_name) VALUES ('u-ada', '00000000-0000-4000-8000-00000000000a', 'Desk');
      INSERT INTO credentials (user_id, name, value_encrypted) VALUES ('u-ada', 'openai_api_key', 'sealed');
      INSERT INTO call_retention (user_id, calls_days) VALUES ('u-bob', 30);
      INSERT INTO do_not_call (user_id, phone) VALUES ('u-ada', '+15550001111');
    `);

    await upgrade();

    const rows = async (sql: string) => (await client.query(sql)).rows;
    expect(await rows(`SELECT id, name, slug FROM organization ORDER BY id`)).toEqual([
      { id: "u-ada", name: "Ada's team", slug: "u-ada" },
      { id: "u-bob", name: "Bob O'Brien's team", slug: "u-bob" },
    ]);
    expect(await rows(`SELECT organization_id, user_id, role FROM member ORDER BY user_id`)).toEqual([
      { organization_id: "u-ada", user_id: "u-ada", role: "owner" },
      { organization_id: "u-bob", user_id: "u-bob", role: "owner" },
    ]);
    expect(await rows(`SELECT organization_id, name FROM assistants`)).toEqual([{ organization_id: "u-ada", name: "Desk" }]);
    expect(await rows(`SELECT organization_id, name FROM tools`)).toEqual([{ organization_id: "u-bob", name: "Lookup" }]);
    expect(await rows(`SELECT organization_id FROM calls`)).toEqual([{ organization_id: "u-ada" }]);
    expect(await rows(`SELECT organization_id, name FROM credentials`)).toEqual([{ organization_id: "u-ada", name: "openai_api_key" }]);
    expect(await rows(`SELECT organization_id, calls_days FROM call_retention`)).toEqual([{ organization_id: "u-bob", calls_days: 30 }]);
    expect(await rows(`SELECT organization_id, phone FROM do_not_call`)).toEqual([{ organization_id: "u-ada", phone: "+15550001111" }]);
    // The organisation now owns them: deleting it takes its rows, a user no longer does.
    await client.exec(`DELETE FROM organization WHERE id = 'u-ada'`);
    expect(await rows(`SELECT count(*)::int AS n FROM assistants`)).toEqual([{ n: 0 }]);
  });
});
