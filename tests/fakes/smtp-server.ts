/**
 * A minimal SMTP listener on 127.0.0.1 (random port) that keeps every message it receives, so
 * tests go through the real mailer (nodemailer over a socket) instead of replacing it.
 *
 *   const smtp = await startFakeSmtp();   // SMTP_URL = smtp.url
 *   const mail = await smtp.nextMessage(); // { to, raw, text }
 *
 * It speaks the subset nodemailer uses without TLS or auth: EHLO/HELO, MAIL, RCPT, DATA, RSET,
 * NOOP, QUIT.
 */
import { createServer, type Socket } from "node:net";
import { portOf } from "../free-port.ts";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent (headers and body, dot-unstuffed). */
  raw: string;
  /** The body with quoted-printable soft breaks and escapes undone. */
  text: string;
}

function decodeQuotedPrintable(body: string): string {
  return body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startFakeSmtp() {
  const messages: ReceivedMail[] = [];
  const waiters: Array<(mail: ReceivedMail) => void> = [];
  const sockets = new Set<Socket>();

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.setEncoding("utf8");
    let buffer = "";
    let inData = false;
    let data: string[] = [];
    let from = "";
    let to: string[] = [];
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply("220 fake-smtp ready");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === ".") {
            inData = false;
            const raw = data.join("\r\n");
            const headerEnd = raw.indexOf("\r\n\r\n");
            const body = headerEnd < 0 ? raw : raw.slice(headerEnd + 4);
            const mail: ReceivedMail = { from, to, raw, text: decodeQuotedPrintable(body) };
            messages.push(mail);
            waiters.shift()?.(mail);
            data = [];
            reply("250 OK: queued");
          } else data.push(line.startsWith("..") ? line.slice(1) : line);
          continue;
        }
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === "EHLO") socket.write("250-fake-smtp\r\n250 8BITMIME\r\n");
        else if (verb === "HELO") reply("250 fake-smtp");
        else if (verb === "MAIL") {
          from = /<([^>]*)>/.exec(line)?.[1] ?? "";
          to = [];
          reply("250 OK");
        } else if (verb === "RCPT") {
          to.push(/<([^>]*)>/.exec(line)?.[1] ?? "");
          reply("250 OK");
        } else if (verb === "DATA") {
          inData = true;
          reply("354 End data with <CR><LF>.<CR><LF>");
        } else if (verb === "QUIT") {
          reply("221 Bye");
          socket.end();
        } else if (verb === "RSET" || verb === "NOOP") reply("250 OK");
        else reply("502 Command not implemented");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = portOf(server);

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The next message to arrive after this call. */
    nextMessage(timeoutMs = 10_000): Promise<ReceivedMail> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no e-mail arrived")), timeoutMs);
        const done = (mail: ReceivedMail) => {
          clearTimeout(timer);
          resolve(mail);
        };
        waiters.push(done);
      });
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakeSmtp = Awaited<ReturnType<typeof startFakeSmtp>>;

/** The first http(s) link in a message's text. */
export function firstLink(mail: ReceivedMail): string {
  const match = /https?:\/\/\S+/.exec(mail.text);
  if (!match) throw new Error(`no link in the e-mail:\n${mail.text}`);
  return match[0];
}
