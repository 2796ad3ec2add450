/**
 * baresip (Debian's baresip-core), a real SIP phone, run headless on 127.0.0.1: it speaks a
 * 440 Hz sine (ausine), keeps what it hears in a WAV (sndfile) and is driven over its ctrl_tcp
 * socket (netstring JSON commands, and events such as CALL_ESTABLISHED and CALL_CLOSED).
 *
 *   const phone = await startBaresip();
 *   await phone.command("dial", "sip:agent@127.0.0.1:5060");
 *   await phone.event("CALL_ESTABLISHED");
 */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./sipp.ts";

export interface BaresipEvent {
  type: string;
  param?: string;
  [key: string]: unknown;
}

export const BARESIP_TONE_HZ = 440;

/**
 * `autoAnswer`: baresip answers calls to it at once (its account's answermode=auto); `user`: its
 * number (it refuses calls to any other); `toneHz`: the sine it speaks; `callTransfer: false`: it
 * refuses a REFER (its account's call_transfer=no), as a trunk that takes none does; `audioFile`:
 * a WAV (8 kHz mono) it plays instead of the sine (aufile), from the answer on; `codec`: the one
 * codec it offers and accepts (µ-law by default); `tls`: its account speaks SIP over TLS (its own
 * certificate, listening on `tlsPort`, and the CA it trusts for ours); `srtp`: its media must be
 * SRTP by SDES (mediaenc=srtp-mand: it offers and accepts only RTP/SAVP with a=crypto).
 */
export async function startBaresip(options: BaresipOptions = {}) {
  // A picked port can be taken by another test file's socket before baresip binds it; baresip
  // then exits at once, and a fresh set of ports is tried.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options);
    } catch (error) {
      if (!(error instanceof BaresipExited) || attempt === 3) throw error;
    }
  }
}

interface BaresipOptions {
  autoAnswer?: boolean;
  user?: string;
  toneHz?: number;
  callTransfer?: boolean;
  audioFile?: string;
  codec?: "PCMU" | "PCMA";
  tls?: { certificate: string; ca: string };
  srtp?: boolean;
}

class BaresipExited extends Error {}

async function startOnce(options: BaresipOptions) {
  const dir = await mkdtemp(join(tmpdir(), "baresip-"));
  const sipPort = options.tls ? await freePortPair() : await freePort();
  const ctrlPort = await freePort();
  const rtpBase = 36000 + 2 * Math.floor(Math.random() * 1000);
  await writeFile(
    join(dir, "config"),
    [
      "poll_method epoll",
      `sip_listen 127.0.0.1:${sipPort}`,
      // Loopback only: baresip would otherwise advertise the machine's other addresses.
      "net_interface 127.0.0.1",
      "module_path /usr/lib/baresip/modules",
      // TLS listens on sip_listen's port + 1, with this certificate (and key) as its own.
      ...(options.tls ? [`sip_certificate ${options.tls.certificate}`, `sip_cafile ${options.tls.ca}`] : []),
      // srtp before account: the account's mediaenc names what srtp.so registers.
      ...["g711", "ausine", "aufile", "aubridge", "sndfile", ...(options.srtp ? ["srtp"] : []), "account", "menu", "ctrl_tcp"].map((m) => `module ${m}.so`),
      // No sound card: the player is a bridge nobody reads; the source a sine.
      "audio_player aubridge,nowhere",
      "audio_alert aubridge,nowhere",
      ...(options.audioFile
        ? [`audio_source aufile,${options.audioFile}`, "ausrc_srate 8000", "ausrc_channels 1"]
        : [`audio_source ausine,${options.toneHz ?? BARESIP_TONE_HZ}`, "ausrc_srate 48000", "ausrc_channels 2"]),
      `rtp_ports ${rtpBase}-${rtpBase + 9}`,
      `ctrl_tcp_listen 127.0.0.1:${ctrlPort}`,
      `snd_path ${dir}`,
      "",
    ].join("\n"),
  );
  const account = `<sip:${options.user ?? "phone"}@127.0.0.1${options.tls ? ";transport=tls" : ""}>`;
  const extras = [options.autoAnswer ? ";answermode=auto" : "", options.callTransfer === false ? ";call_transfer=no" : "", options.srtp ? ";mediaenc=srtp-mand" : ""].join("");
  await writeFile(join(dir, "accounts"), `${account};regint=0;audio_codecs=${options.codec ?? "PCMU"}/8000/1${extras}\n`);
  const child = spawn("baresip", ["-4", "-f", dir], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (d: Buffer) => void (output += d.toString("utf8")));
  child.stderr.on("data", (d: Buffer) => void (output += d.toString("utf8")));
  let hasExited = false;
  const exited = new Promise<void>((resolve) => child.on("close", () => ((hasExited = true), resolve())));

  let stopped: Promise<{ samples: Int16Array; sampleRate: number } | null> | null = null;
  const events: BaresipEvent[] = [];
  const listeners = new Set<() => void>();
  const socket = await connectWithRetry(ctrlPort, () => hasExited).catch(async (error: unknown) => {
    const early = hasExited;
    child.kill("SIGKILL");
    await exited;
    await rm(dir, { recursive: true, force: true });
    throw early ? new BaresipExited(`baresip exited: ${output.slice(-1000)}`) : error;
  });
  let buffered = "";
  socket.on("data", (d: Buffer) => {
    buffered += d.toString("utf8");
    // Netstrings: <length>:<json>,
    for (let m = /^(\d+):/.exec(buffered); m && buffered.length >= m[0].length + Number(m[1]) + 1; m = /^(\d+):/.exec(buffered)) {
      const json = buffered.slice(m[0].length, m[0].length + Number(m[1]));
      buffered = buffered.slice(m[0].length + Number(m[1]) + 1);
      const message = JSON.parse(json) as { event?: boolean } & BaresipEvent;
      if (message.event) events.push(message);
      for (const l of listeners) l();
    }
  });

  return {
    sipPort,
    /** Where its TLS listens (with `tls`). */
    tlsPort: sipPort + 1,
    events,
    get output() {
      return output;
    },
    /** Sends a command (dial, hangup, sndcode, quit, ...). */
    command(command: string, params = "") {
      const json = JSON.stringify({ command, params, token: String(Date.now()) });
      socket.write(`${Buffer.byteLength(json)}:${json},`);
    },
    /** The first event of `type` (already seen or still to come). */
    event(type: string, ms = 5000): Promise<BaresipEvent> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find((e) => e.type === type);
          if (!found) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(found);
        };
        const timer = setTimeout(() => (listeners.delete(check), reject(new Error(`baresip sent no ${type}; events: ${events.map((e) => e.type).join(", ")}\n${output.slice(-2000)}`))), ms);
        listeners.add(check);
        check();
      });
    },
    /** Ends baresip and returns what it heard (mono PCM16 at the WAV's rate). */
    stop(): Promise<{ samples: Int16Array; sampleRate: number } | null> {
      stopped ??= stop();
      return stopped;
    },
  };

  async function stop(): Promise<{ samples: Int16Array; sampleRate: number } | null> {
      socket.destroy();
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 3000);
      await exited;
      clearTimeout(killer);
      const wav = (await readdir(dir)).find((f) => f.endsWith("-dec.wav"));
      const heard = wav ? readWav(await readFile(join(dir, wav))) : null;
      await rm(dir, { recursive: true, force: true });
      return heard;
  }
}

export type Baresip = Awaited<ReturnType<typeof startBaresip>>;

/** A free port whose next one is free for TCP too (baresip's TLS listens there). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port >= 65535) continue;
    const tcp = createServer();
    const ok = await new Promise<boolean>((resolve) => {
      tcp.once("error", () => resolve(false));
      tcp.listen(port + 1, "127.0.0.1", () => resolve(true));
    });
    if (!ok) continue;
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    return port;
  }
}

/** Connects to baresip's control port, for up to 20 s (a loaded machine starts it slowly) or until it exits. */
async function connectWithRetry(port: number, exited: () => boolean): Promise<Socket> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const s = connect(port, "127.0.0.1", () => resolve(s));
        s.once("error", reject);
      });
    } catch (error) {
      if (exited() || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** A PCM16 WAV's first channel. */
function readWav(wav: Buffer): { samples: Int16Array; sampleRate: number } {
  const channels = wav.readUInt16LE(22);
  const sampleRate = wav.readUInt32LE(24);
  let offset = 12;
  while (offset + 8 <= wav.length && wav.toString("latin1", offset, offset + 4) !== "data") offset += 8 + wav.readUInt32LE(offset + 4);
  const data = wav.subarray(offset + 8);
  const frames = Math.floor(data.length / (2 * channels));
  const samples = new Int16Array(frames);
  for (let i = 0; i < frames; i += 1) samples[i] = data.readInt16LE(i * 2 * channels);
  return { samples, sampleRate };
}
