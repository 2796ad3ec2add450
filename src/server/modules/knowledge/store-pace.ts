/**
 * How many passages the store puts in its next insert statement. The embedded database runs one
 * statement at a time (on its own thread: ADR 091), and a passage's insert (its row, its words'
 * GIN entries and counts, its HNSW insertion) is the longest thing ingestion does there: the
 * calls' own statements (their records, their transcripts) and the API's wait as long as it
 * takes. So each statement aims to take at most `STATEMENT_BUDGET_MS`: the size halves after a
 * statement that took longer, doubles after one well within it. On the embedded database that
 * settles at a row or two a statement; on a PostgreSQL server, where a statement's time is
 * mostly its round trip, it grows to `MAX_ROWS` and a document goes in with few round trips.
 * Measured per machine and per moment, not fixed: the same insert takes three times longer on a
 * loaded machine.
 */
export const STATEMENT_BUDGET_MS = 4;
export const MAX_ROWS = 64;
export const FIRST_ROWS = 1;

/** The next statement's row count, after one of `rows` rows took `tookMs`. */
export function nextRows(rows: number, tookMs: number): number {
  if (tookMs > STATEMENT_BUDGET_MS) return Math.max(1, Math.floor(rows / 2));
  if (tookMs < STATEMENT_BUDGET_MS / 2) return Math.min(MAX_ROWS, rows * 2);
  return rows;
}
