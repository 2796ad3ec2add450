/**
 * What SIP over TLS starts with: our certificate and key as configured, or — when a file is
 * missing, not PEM, or the key is not the certificate's — no TLS, and a log line that says why.
 */
import { writeFile } from "node:fs/promises";
import type { FastifyBaseLogger } from "fastify";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeCertificate, type TestCertificate } from "../../../../tests/fakes/tls-cert.ts";
import { loadTls } from "./tls.ts";

let one: TestCertificate;
let two: TestCertificate;
beforeAll(async () => void ([one, two] = await Promise.all([makeCertificate(), makeCertificate()])));
afterAll(() => Promise.all([one.remove(), two.remove()]));

function logger() {
  const warnings: string[] = [];
  return { warnings, log: { warn: (_obj: object, msg: string) => void warnings.push(msg) } as unknown as FastifyBaseLogger };
}

it("reads the certificate, key and extra CA, on the configured port", async () => {
  const { warnings, log } = logger();
  const tls = await loadTls({ certFile: one.certFile, keyFile: one.keyFile, port: 5071, caFile: two.certFile, srtp: "required" }, log);
  expect(tls).toMatchObject({ port: 5071, srtp: "required" });
  expect(tls?.ca?.toString()).toContain("BEGIN CERTIFICATE");
  expect(warnings).toEqual([]);
});

it("leaves TLS off, saying why, for a missing file, a key that is not the certificate's, or a file that is not PEM", async () => {
  const notPem = `${one.certFile}.txt`;
  await writeFile(notPem, "hello");
  for (const [certFile, keyFile] of [
    [`${one.certFile}.missing`, one.keyFile],
    [one.certFile, two.keyFile],
    [notPem, one.keyFile],
  ] as const) {
    const { warnings, log } = logger();
    expect(await loadTls({ certFile, keyFile, port: 5061, srtp: "optional" }, log)).toBeUndefined();
    expect(warnings[0]).toMatch(/^SIP over TLS is off: cannot use SIP_TLS_CERT, SIP_TLS_KEY or SIP_TLS_CA/);
  }
});
