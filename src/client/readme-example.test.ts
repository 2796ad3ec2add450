import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT_DIR } from "../server/paths.ts";

it("the README shows the typed client's example as readme-example.ts has it (which tsc checks)", () => {
  const example = readFileSync(join(ROOT_DIR, "src/client/readme-example.ts"), "utf8");
  // From the first import on: the file's own header comment is not in the README.
  const code = example.slice(example.indexOf("import "));
  expect(readFileSync(join(ROOT_DIR, "README.md"), "utf8")).toContain(code.replace('from "./api-client.ts"', 'from "./switchboard/api-client.ts"'));
});
