/**
 * Process plumbing every multi-process bench shares (bench:voice, bench:calls, bench:live):
 * forking a child that runs TypeScript, reading a process's CPU time, a free port, settling
 * the heap, and the one way results are printed (a Markdown table, right-aligned).
 */
import { fork, spawnSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

/** A child running `scripts/<script>` under tsx, with an IPC channel. */
export function child(script: string): ChildProcess {
  return fork(join(import.meta.dirname, script), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/** Waits until the server `child` runs answers its health check at `url` (at most `seconds`). */
export async function untilHealthy(server: ChildProcess, url: string, seconds = 60): Promise<void> {
  for (let i = 0; i < seconds * 5; i++) {
    if (server.exitCode !== null) throw new Error("the server exited during start-up");
    if (await fetch(`${url}/api/health`).then((r) => r.ok, () => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the server did not answer its health check within ${seconds} s`);
}

/**
 * Runs a process and all its threads on the given cores (Linux `taskset`; threads and children
 * it makes later inherit them). False when that could not be done.
 */
export function pinTo(pid: number | undefined, cores: string): boolean {
  if (pid === undefined) return false;
  return spawnSync("taskset", ["-a", "-p", "-c", cores, String(pid)], { stdio: "ignore" }).status === 0;
}

const CLOCK_TICKS_PER_S = 100;

/** CPU seconds a process has used so far (Linux /proc; NaN elsewhere). */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory of a process (Linux /proc), MB; NaN when it is gone. */
export function rssMbOf(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** The processes of this name (e.g. a PostgreSQL server's postmaster and backends). */
export function pidsOfCommand(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === name) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/**
 * CPU seconds used so far by every process of this name, with their children that have exited
 * (a PostgreSQL backend that ends mid-window moves its time into the postmaster's).
 */
export function cpuSecondsOfCommand(name: string): number {
  let total = 0;
  for (const pid of pidsOfCommand(name)) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_S;
    } catch {
      // gone meanwhile
    }
  }
  return total;
}

export interface LoopWatch {
  /**
   * Event-loop delay p99 and max, garbage collection: total and longest pause, and how long the
   * loop's thread was ready to run but waited for a core (Linux's schedstat; NaN elsewhere), ms.
   */
  stop(): { delayP99: number; delayMax: number; gcTotal: number; gcMax: number; coreWait: number };
}

/** The main thread's time spent runnable but waiting for a core, ms (`/proc/…/schedstat`'s second field). */
function coreWaitMs(): number {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** Watches this process's event loop (timer lateness, 1 ms resolution) and its GC pauses until `stop`. */
export function watchEventLoop(): LoopWatch {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const pauses: number[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push(entry.duration);
  });
  gc.observe({ entryTypes: ["gc"] });
  const waited = coreWaitMs();
  return {
    stop() {
      delay.disable();
      gc.disconnect();
      return { delayP99: delay.percentile(99) / 1e6, delayMax: delay.max / 1e6, gcTotal: pauses.reduce((a, b) => a + b, 0), gcMax: Math.max(0, ...pauses), coreWait: coreWaitMs() - waited };
    },
  };
}

export { freePort } from "../tests/free-port.ts";

/** Full collections until memory settles (the previous run's database is freed through finalisers). */
export async function collectGarbage(): Promise<void> {
  for (let i = 0; i < 3; i += 1) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Markdown table, every cell right-aligned to its column. */
/** `--name N` from the command line when N is a number above 0, else `fallback`. */
export function positiveOption(args: readonly string[], name: string, fallback: number): number {
  const at = args.indexOf(name);
  const value = at >= 0 ? Number(args[at + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

export function markdownTable(head: readonly string[], body: ReadonlyArray<readonly string[]>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(" | ")} |`;
  return [line(head), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}
