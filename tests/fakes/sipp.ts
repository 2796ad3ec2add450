/**
 * SIPp (Debian's sip-tester) as the far end of a SIP test: its built-in `uac`/`uas` scenarios or
 * an XML scenario written by the test, against our endpoint on 127.0.0.1. SIPp exits 0 when
 * every call of its scenario went as written, 1 when one failed.
 *
 *   const run = await runSipp({ target: `127.0.0.1:${endpoint.port}`, scenario: "uac" });
 *   expect(run.code, run.log).toBe(0);
 */
import { spawn } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A port free for both UDP and TCP on 127.0.0.1 (SIPp listens on one number for its transport). */
export async function freePort(): Promise<number> {
  for (;;) {
    const udp = createSocket("udp4");
    const port = await new Promise<number>((resolve) => udp.bind(0, "127.0.0.1", () => resolve(udp.address().port)));
    const tcp = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port, "127.0.0.1", () => resolve(true));
    });
    udp.close();
    if (ok) {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      return port;
    }
  }
}

export interface SippRun {
  code: number | null;
  /** SIPp's screen and error log, for a failing assertion's message. */
  log: string;
  /** Every message SIPp sent and received (`-trace_msg`), when `traceMessages` was asked for. */
  messages: string;
}

export interface SippOptions {
  /** `host:port` SIPp sends to (a UAC), or "" for a UAS that waits. */
  target: string;
  /** "uac", "uas", or the XML of a scenario. */
  scenario: string;
  /** Our port for SIPp to listen on; one is found when not given. */
  port?: number;
  transport?: "UDP" | "TCP";
  args?: string[];
  /** SIPp's own limit on the run, seconds. */
  timeoutS?: number;
  /** Keep SIPp's trace of every message, for the test to read what our side sent. */
  traceMessages?: boolean;
  /** How many calls the scenario takes (each runs it from the top), at once at most; 1 by default. */
  calls?: number;
}

export interface SippProcess {
  port: number;
  done: Promise<SippRun>;
}

/** Starts SIPp; `done` settles when it exits (it is killed after `timeoutS` + 5 s). */
export async function startSipp(options: SippOptions, attempt = 1): Promise<SippProcess> {
  const started = await spawnSipp(options);
  // Another test can take a port between freePort and SIPp's bind: then again on new ports.
  if (options.port !== undefined || attempt === 3) return started;
  const again = (run: SippRun) => /Unable to bind/.test(run.log);
  if (options.target) return { port: started.port, done: started.done.then(async (run) => (again(run) ? (await startSipp(options, attempt + 1)).done : run)) };
  // A UAS that lost its port exits at once; the port it was waiting on belongs to someone else.
  const exited = await Promise.race([started.done, new Promise<null>((r) => setTimeout(() => r(null), 200))]);
  return exited && again(exited) ? startSipp(options, attempt + 1) : started;
}

async function spawnSipp(options: SippOptions): Promise<SippProcess> {
  const dir = await mkdtemp(join(tmpdir(), "sipp-"));
  const port = options.port ?? (await freePort());
  const mediaPort = await freePort();
  const scenario = options.scenario === "uac" || options.scenario === "uas" ? ["-sn", options.scenario] : ["-sf", join(dir, "scenario.xml")];
  if (scenario[0] === "-sf") await writeFile(join(dir, "scenario.xml"), options.scenario);
  const timeout = options.timeoutS ?? 8;
  const args = [
    ...(options.target ? [options.target] : []),
    ...scenario,
    "-i", "127.0.0.1",
    "-p", String(port),
    "-mp", String(mediaPort),
    "-m", String(options.calls ?? 1),
    "-l", String(options.calls ?? 1),
    "-t", options.transport === "TCP" ? "t1" : "u1",
    "-timeout", `${timeout}s`,
    "-timeout_error",
    "-trace_err",
    "-nostdin",
    ...(options.traceMessages ? ["-trace_msg"] : []),
    ...(options.args ?? []),
  ];
  const child = spawn("sipp", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let screen = "";
  child.stdout.on("data", (d: Buffer) => void (screen += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => void (screen += d.toString("utf8")));
  const killer = setTimeout(() => child.kill("SIGKILL"), (timeout + 5) * 1000);
  const done = new Promise<SippRun>((resolve) => {
    child.on("close", async (code) => {
      clearTimeout(killer);
      let errors = "";
      let messages = "";
      for (const file of await readdir(dir)) {
        if (file.endsWith("_errors.log")) errors += await readFile(join(dir, file), "utf8");
        if (file.endsWith("_messages.log")) messages += await readFile(join(dir, file), "utf8");
      }
      await rm(dir, { recursive: true, force: true });
      resolve({ code, log: `${errors}\n${screen.slice(-3000)}`, messages });
    });
  });
  // SIPp as a UAS must be listening before anything is sent to it.
  if (!options.target) await waitForPort(port, options.transport ?? "UDP");
  return { port, done };
}

export async function runSipp(options: SippOptions): Promise<SippRun> {
  return (await startSipp(options)).done;
}

async function waitForPort(port: number, transport: "UDP" | "TCP") {
  for (let i = 0; i < 100; i += 1) {
    const taken = await new Promise<boolean>((resolve) => {
      if (transport === "TCP") {
        const probe = createServer();
        probe.once("error", () => resolve(true));
        probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(false)));
        return;
      }
      const probe = createSocket("udp4");
      probe.once("error", () => resolve(true));
      probe.bind(port, "127.0.0.1", () => probe.close(() => resolve(false)));
    });
    if (taken) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
