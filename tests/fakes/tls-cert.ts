/**
 * A self-signed certificate for 127.0.0.1 made at test time with openssl (no key is kept in the
 * repository): the PEM files in a temporary folder, and both in one file as baresip wants them.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

export interface TestCertificate {
  certFile: string;
  keyFile: string;
  /** Certificate then key, one file (baresip's sip_certificate). */
  bothFile: string;
  remove(): Promise<void>;
}

export async function makeCertificate(commonName = "127.0.0.1"): Promise<TestCertificate> {
  const dir = await mkdtemp(join(tmpdir(), "sip-tls-"));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  const bothFile = join(dir, "both.pem");
  await promisify(execFile)("openssl", [
    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
    "-keyout", keyFile, "-out", certFile, "-days", "2", "-subj", `/CN=${commonName}`, "-addext", `subjectAltName=IP:${commonName}`,
  ]);
  await writeFile(bothFile, Buffer.concat([await readFile(certFile), await readFile(keyFile)]));
  return { certFile, keyFile, bothFile, remove: () => rm(dir, { recursive: true, force: true }) };
}
