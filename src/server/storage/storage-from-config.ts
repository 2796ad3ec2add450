import type { Config } from "../config.ts";
import { createDefaultStorage } from "./local-storage.ts";
import { S3Storage } from "./s3-storage.ts";
import type { Storage } from "./storage.ts";

/** The S3 bucket when S3_* is set (shipped media still read from the package), else `<DATA_DIR>/objects`. */
export function createStorageFromConfig(config: Pick<Config, "dataDir" | "s3">): Storage {
  const local = createDefaultStorage(config.dataDir);
  if (!config.s3) return local;
  return new S3Storage({ config: config.s3, fallback: local, fallbackPrefixes: ["media"] });
}
