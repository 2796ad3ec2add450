import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { describe, expect, it } from "vitest";
import { makePdf } from "../../../../tests/knowledge-files.ts";
import { extractInWorker } from "./extract-in-worker.ts";

/** Each thread of this process and its nice value (Linux keeps one per thread: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

describe.runIf(process.platform === "linux")("the extraction thread", () => {
  it("reads a document at the lowest priority, leaving the server's own threads where they were", async () => {
    const before = getPriority();
    const { chunks, pages } = await extractInWorker(await makePdf([["Opening hours: 9 to 5 on weekdays."]]), "pdf");
    expect(pages).toBe(1);
    expect(chunks.map((c) => c.content).join(" ")).toContain("Opening hours");
    expect(threadNices()).toContain(19);
    expect(getPriority()).toBe(before);
  });
});
