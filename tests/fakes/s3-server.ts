/**
 * A real S3-compatible server (s3rver, files in a temporary folder) on a loopback port, for the
 * S3 storage backend's tests. It speaks the S3 REST protocol with SigV4 signatures; the
 * credentials below are the ones it accepts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error s3rver ships no type declarations
import S3rver from "s3rver";
import type { S3Config } from "../../src/server/config.ts";

export interface LocalS3 {
  config: S3Config;
  /** The same settings as environment variables, for a spawned server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startLocalS3(bucket = "switchboard-test"): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), "switchboard-s3-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] }) as {
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  };
  const { port } = await server.run();
  const config: S3Config = {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    forcePathStyle: true,
  };
  return {
    config,
    env: {
      S3_ENDPOINT: config.endpoint,
      S3_BUCKET: bucket,
      S3_REGION: config.region,
      S3_ACCESS_KEY_ID: config.accessKeyId,
      S3_SECRET_ACCESS_KEY: config.secretAccessKey,
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
