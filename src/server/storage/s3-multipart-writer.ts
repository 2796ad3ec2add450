import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from "@aws-sdk/client-s3";
import type { AppendWriter, ObjectInfo } from "./storage.ts";

/** S3's smallest part (every part but the last must be at least this big). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export interface S3MultipartWriterOptions {
  client: S3Client;
  bucket: string;
  key: string;
  contentType: string;
  /** Bytes per uploaded part; at least MIN_PART_SIZE. */
  partSize?: number;
  /** Reads the finished object's info (S3Storage.stat). */
  stat: (key: string) => Promise<ObjectInfo | null>;
}

/**
 * AppendWriter (storage.ts) on S3 multipart upload. The first part is held back until `finish`, so its start
 * can still be replaced (a WAV header with the final sizes); later parts are uploaded as soon as
 * they are full, so memory stays under two parts whatever the length. An object shorter than one
 * part is written with a single PutObject and no multipart upload at all.
 *
 * Until `finish` the object does not exist for readers (S3 shows nothing of an incomplete
 * upload). If the process dies before, the parts stay as an incomplete upload: configure the
 * bucket's AbortIncompleteMultipartUpload lifecycle rule to reclaim them.
 */
export class S3MultipartWriter implements AppendWriter {
  readonly key: string;
  private readonly partSize: number;
  private first: Buffer[] = [];
  private firstSize = 0;
  private pending: Buffer[] = [];
  private pendingSize = 0;
  private uploadId: string | null = null;
  private readonly parts: CompletedPart[] = [];
  private written = 0;
  private state: "open" | "finished" | "aborted" = "open";
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly o: S3MultipartWriterOptions) {
    this.key = o.key;
    this.partSize = Math.max(MIN_PART_SIZE, o.partSize ?? MIN_PART_SIZE);
  }

  get size(): number {
    return this.written;
  }

  append(chunk: Uint8Array): Promise<void> {
    if (this.state !== "open") return Promise.reject(new Error(`The object ${this.key} is already ${this.state}`));
    // Copied: the caller may reuse its buffer once append returns.
    let rest = Buffer.from(chunk);
    this.written += rest.length;
    if (this.firstSize < this.partSize) {
      const take = rest.subarray(0, this.partSize - this.firstSize);
      this.first.push(take);
      this.firstSize += take.length;
      rest = rest.subarray(take.length);
    }
    if (rest.length > 0) {
      this.pending.push(rest);
      this.pendingSize += rest.length;
    }
    // Parts go out one at a time in order; append resolves once its full parts are uploaded.
    while (this.pendingSize >= this.partSize) {
      const all = Buffer.concat(this.pending);
      const part = all.subarray(0, this.partSize);
      this.pending = [all.subarray(this.partSize)];
      this.pendingSize = all.length - this.partSize;
      this.enqueue(() => this.uploadPart(part, this.parts.length + 2));
    }
    return this.queue;
  }

  async finish({ head }: { head?: Uint8Array } = {}): Promise<ObjectInfo> {
    if (this.state !== "open") throw new Error(`The object ${this.key} is already ${this.state}`);
    this.state = "finished";
    await this.queue;
    const first = Buffer.concat(this.first);
    if (head) {
      if (head.length > first.length) throw new RangeError("head is longer than the first part");
      first.set(head, 0);
    }
    const { client, bucket, key, contentType } = this.o;
    if (this.uploadId === null) {
      const body = Buffer.concat([first, ...this.pending]);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }));
    } else {
      if (this.pendingSize > 0) await this.uploadPart(Buffer.concat(this.pending), this.parts.length + 2);
      await this.uploadPart(first, 1);
      const parts = [...this.parts].sort((a, b) => a.PartNumber! - b.PartNumber!);
      await client.send(
        new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId, MultipartUpload: { Parts: parts } }),
      );
    }
    this.first = [];
    this.pending = [];
    const info = await this.o.stat(key);
    if (!info) throw new Error(`The object ${key} is missing right after it was written`);
    return info;
  }

  async abort(): Promise<void> {
    if (this.state !== "open") return;
    this.state = "aborted";
    await this.queue.catch(() => undefined);
    this.first = [];
    this.pending = [];
    if (this.uploadId === null) return;
    const { client, bucket, key } = this.o;
    await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId }));
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step);
  }

  private async uploadPart(body: Buffer, partNumber: number): Promise<void> {
    const { client, bucket, key, contentType } = this.o;
    if (this.uploadId === null) {
      const created = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ContentType: contentType }));
      if (!created.UploadId) throw new Error("The object store returned no upload id");
      this.uploadId = created.UploadId;
    }
    const result = await client.send(
      new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: this.uploadId, PartNumber: partNumber, Body: body, ContentLength: body.length }),
    );
    this.parts.push({ PartNumber: partNumber, ETag: result.ETag });
  }
}
