/**
 * Seeds npm run bench:api's database: 100 users (one of them signed up through the API, the rest
 * written directly), 3 assistants each, and N calls spread over the last 365 days with realistic
 * logs (6–11 transcript entries of contact-centre talk), written by generate_series in the
 * database itself. The calls indexes are dropped for the load and rebuilt after it (far faster
 * than maintaining a GIN index row by row), from their own definitions in pg_indexes.
 */
import pg from "pg";

export const BENCH_USERS = 100;

const PHRASES = [
  "Thank you for calling, how can I help you today?",
  "I would like a refund for my last order",
  "Where is my parcel, it was due yesterday",
  "Can you check the status of order 4521 please",
  "I need to change my delivery address",
  "My invoice shows the wrong amount",
  "I forgot my password and cannot log in",
  "Let me look that up for you",
  "One moment while I check the tracking number",
  "Your parcel is with the courier and arrives tomorrow",
  "I have issued the refund, it takes five working days",
  "Could you confirm your postcode please",
  "I want to cancel my subscription",
  "The product arrived damaged",
  "We can send a replacement today",
  "Is there anything else I can help with?",
  "No that is all, thank you",
  "I would like to speak to a manager",
  "I am transferring you to the billing team",
  "Your appointment is booked for Tuesday at ten",
  "Can I reschedule my appointment",
  "The warranty covers the repair",
  "Please hold while I connect you",
  "What are your opening hours",
  "We are open from nine to six on weekdays",
  "My card was charged twice",
  "I can see the duplicate payment and will reverse it",
  "How do I return an item",
  "You can print the return label from your account",
  "The discount code is not working",
  "I have applied the discount manually",
  "Do you deliver to Ireland",
  "Yes, delivery to Ireland takes three days",
  "I want to upgrade my plan",
  "The premium plan includes priority support",
  "My internet connection keeps dropping",
  "Please restart the router and wait two minutes",
  "Is the technician coming today",
  "The technician will arrive between two and four",
  "Goodbye and have a nice day",
];

export interface SeedOptions {
  url: string;
  calls: number;
  /** The signed-up user the benchmark queries as (user index 0). */
  mainUserId: string;
  log: (line: string) => void;
}

export async function seedBenchData({ url, calls, mainUserId, log }: SeedOptions): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET synchronous_commit = off");
    await client.query("SET maintenance_work_mem = '256MB'");
    await client.query("SELECT setseed(0.42)");
    await client.query(
      `INSERT INTO "user" (id, name, email, email_verified)
       SELECT 'bench-user-' || lpad(i::text, 3, '0'), 'Bench user ' || i, 'bench-' || lpad(i::text, 3, '0') || '@example.com', true
       FROM generate_series(1, $1 - 1) i ON CONFLICT DO NOTHING`,
      [BENCH_USERS],
    );
    // Each bench user owns a team with their id, as sign-up makes it.
    await client.query(
      `INSERT INTO organization (id, name, slug) SELECT id, name || '''s team', id FROM "user" WHERE id LIKE 'bench-user-%' ON CONFLICT DO NOTHING`,
    );
    await client.query(`CREATE TEMP TABLE bu AS SELECT 0 AS idx, $1::text AS id UNION ALL SELECT substr(id, 12)::int, id FROM "user" WHERE id LIKE 'bench-user-%'`, [mainUserId]);
    await client.query(
      `INSERT INTO assistants (organization_id, name, model, instructions, first_message)
       SELECT bu.id, n.name, 'gpt-realtime-2.1', 'You answer calls for a shop.', 'Hello, how can I help?'
       FROM bu CROSS JOIN (VALUES ('Front desk'), ('Billing'), ('Tech support')) AS n(name)`,
    );
    await client.query(
      `CREATE TEMP TABLE ba AS SELECT bu.idx, row_number() OVER (PARTITION BY bu.idx ORDER BY a.name) - 1 AS slot, a.id, a.name
       FROM bu JOIN assistants a ON a.organization_id = bu.id`,
    );

    const { rows: indexes } = await client.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'calls' AND indexname <> 'calls_pkey'",
    );
    for (const index of indexes) await client.query(`DROP INDEX ${index.indexname}`);

    const chunk = 100_000;
    for (let lo = 1; lo <= calls; lo += chunk) {
      const hi = Math.min(calls, lo + chunk - 1);
      const started = Date.now();
      await client.query(
        `INSERT INTO calls (organization_id, assistant_id, assistant_name, start_time, end_time, ended_reason, cost, caller_number, called_number, logs)
         SELECT bu.id, ba.id, ba.name, c.start, c.start + make_interval(secs => c.seconds),
                CASE WHEN c.test THEN 'User ended call'
                     WHEN c.r < 0.03 THEN 'Connection failed: the provider did not answer in time'
                     WHEN c.r < 0.05 THEN 'Provider error: rate limit reached'
                     WHEN c.r < 0.60 THEN 'Caller hung up'
                     ELSE 'User ended call' END,
                -- the spec §9 tariff (callCost): 5 cents for the first minute, then 1 cent per started 12 s
                round((0.05 + greatest(0, ceil((c.seconds - 60) / 12.0)) * 0.01)::numeric, 2)::float8,
                CASE WHEN c.test THEN NULL ELSE '+1' || (2002000000 + floor(random() * 7990000000))::bigint::text END,
                CASE WHEN c.test THEN NULL ELSE '+1555010' || lpad(bu.idx::text, 4, '0') END,
                jsonb_build_object(
                  'isTest', c.test,
                  'toolsUsed', '[]'::jsonb,
                  'transcript', (
                    SELECT jsonb_agg(jsonb_build_object(
                      'type', CASE WHEN k % 2 = 0 THEN 'assistant' ELSE 'user' END,
                      'content', ($1::text[])[1 + floor(random() * array_length($1::text[], 1))::int],
                      'timestamp', to_char((c.start + make_interval(secs => k * 7)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
                    FROM generate_series(0, 5 + g % 6) k))
         FROM generate_series($2::int, $3::int) g
         -- g / users, not g: the user is g mod users, and every fifth call of each user is a test call.
         CROSS JOIN LATERAL (SELECT (g / ${BENCH_USERS}) % 5 = 0 AS test, random() AS r, 20 + floor(random() * 400) AS seconds,
                                    now() - random() * interval '365 days' AS start) c
         JOIN bu ON bu.idx = g % ${BENCH_USERS}
         JOIN ba ON ba.idx = bu.idx AND ba.slot = (g / ${BENCH_USERS}) % 3`,
        [PHRASES, lo, hi],
      );
      log(`  calls ${hi.toLocaleString("en-US")} / ${calls.toLocaleString("en-US")} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    for (const index of indexes) {
      const started = Date.now();
      await client.query(index.indexdef);
      log(`  index ${index.indexname} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    await client.query("ANALYZE");
  } finally {
    await client.end();
  }
}
