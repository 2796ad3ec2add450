import type { ObjectInfo } from "./storage.ts";

/**
 * An object written a slice at a time (a recording as the call goes), for stores that cannot
 * append to an existing object. S3's implementation is s3-multipart-writer.ts: slices are
 * gathered into multipart-upload parts and the object becomes readable, whole, at `finish`.
 *
 * To be connected to the call engine's recording writer: open one per call, `append` each
 * rendered slice, `finish` at the end of the call (with `replaceStart` = the WAV header, now
 * that the sizes are known), `abort` when the call is dropped.
 */
export interface ObjectWriter {
  readonly key: string;
  /** Bytes appended so far. */
  readonly size: number;
  append(chunk: Uint8Array): Promise<void>;
  /**
   * Makes the object readable with everything appended. `replaceStart` overwrites the first
   * bytes (at most the first part: 5 MiB by default), e.g. a header whose sizes are known only now.
   */
  finish(options?: { replaceStart?: Uint8Array }): Promise<ObjectInfo>;
  /** Drops what was uploaded; the object is not created. */
  abort(): Promise<void>;
}

export interface ObjectWriterOptions {
  contentType?: string;
}
