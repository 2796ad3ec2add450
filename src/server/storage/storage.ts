import type { Readable } from "node:stream";

export interface ObjectInfo {
  key: string;
  size: number;
  contentType: string;
  modifiedAt: Date;
  /** Strong validator usable in ETag / If-Range headers (quoted). */
  etag: string;
}

export interface PutOptions {
  /** Falls back to a type derived from the key's extension. */
  contentType?: string;
}

/** Inclusive byte offsets, as in HTTP ranges and `fs.createReadStream`. */
export interface ByteRange {
  start?: number;
  end?: number;
}

export interface Storage {
  put(key: string, body: Buffer | Uint8Array | Readable, options?: PutOptions): Promise<ObjectInfo>;
  /** Whole object in memory; null when missing. Use createReadStream for large objects. */
  get(key: string): Promise<{ body: Buffer; info: ObjectInfo } | null>;
  stat(key: string): Promise<ObjectInfo | null>;
  /** Throws StorageError("not_found") when missing, before any byte is streamed. */
  createReadStream(key: string, range?: ByteRange): Promise<Readable>;
  /** True when an object was removed. Read-only (shipped) objects are never removed. */
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
}

export type StorageErrorCode = "invalid_key" | "invalid_content_type" | "not_found";

export class StorageError extends Error {
  readonly code: StorageErrorCode;
  constructor(code: StorageErrorCode, message: string) {
    super(message);
    this.name = "StorageError";
    this.code = code;
  }
}
