import { expect } from "vitest";
import { ToolExecutionError } from "../src/server/tools/index.ts";

/** The ToolExecutionError an execution rejects with; the test fails if it succeeds or throws anything else. */
export async function executionFailure(promise: Promise<unknown>): Promise<ToolExecutionError> {
  const err = await promise.then(
    () => expect.fail("expected the execution to fail"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ToolExecutionError);
  return err as ToolExecutionError;
}
