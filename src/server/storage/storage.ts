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

/**
 * An object written as it is produced (a call's recording): opened, appended to, finished.
 * Nothing is visible under the key until `finish`; `abort` leaves nothing behind.
 *
 * Kept to what an object store can do too: appends only go forward, and the one change to bytes
 * already written is `finish({ head })`, which replaces the object's first bytes (a WAV header
 * whose sizes are known only at the end). An S3 backend maps this onto a multipart upload
 * (parts of at least 5 MB buffered before each UploadPart, the first part held back until
 * `finish` so the head can be patched into it, AbortMultipartUpload on `abort`), or onto a
 * local temporary file uploaded at `finish`.
 */
export interface AppendWriter {
  readonly key: string;
  /** Bytes written so far. */
  readonly size: number;
  /** Adds bytes at the end. Calls must not overlap: await each before the next. */
  append(chunk: Uint8Array): Promise<void>;
  /** Completes the object; `head` replaces its first `head.length` bytes (at most what was written). */
  finish(options?: { head?: Uint8Array }): Promise<ObjectInfo>;
  /** Gives up: nothing is stored under the key. Idempotent. */
  abort(): Promise<void>;
}

export interface Storage {
  /** Starts an object written in pieces (see AppendWriter). */
  openAppend(key: string, options?: PutOptions): Promise<AppendWriter>;
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
