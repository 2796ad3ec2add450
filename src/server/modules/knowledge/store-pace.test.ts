/** The store's statement size follows how long the last statement held the database. */
import { expect, it } from "vitest";
import { FIRST_ROWS, MAX_ROWS, nextRows, STATEMENT_BUDGET_MS } from "./store-pace.ts";

it("starts at one row and halves, down to one, after a statement over the budget", () => {
  expect(FIRST_ROWS).toBe(1);
  expect(nextRows(16, STATEMENT_BUDGET_MS * 3)).toBe(8);
  expect(nextRows(1, STATEMENT_BUDGET_MS * 50)).toBe(1);
});

it("doubles, up to the most, after a statement well within the budget, and holds in between", () => {
  expect(nextRows(4, STATEMENT_BUDGET_MS / 4)).toBe(8);
  expect(nextRows(MAX_ROWS, 0)).toBe(MAX_ROWS);
  expect(nextRows(5, STATEMENT_BUDGET_MS * 0.75)).toBe(5);
});
