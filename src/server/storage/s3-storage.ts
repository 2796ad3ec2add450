/**
 * Storage in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, ...) through the official AWS
 * SDK. Selected when the five S3_* settings are set; every instance then reads and writes the
 * same objects. Browsers never talk to the bucket: the media routes stream objects through the
 * server under the same signed addresses as the local folder (docs/decisions/026-s3-storage.md).
 */
import type { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from "@aws-sdk/client-s3";
import type { S3Config } from "../config.ts";
import { contentTypeForKey, isValidContentType, isValidKey } from "./keys.ts";
import { S3MultipartWriter } from "./s3-multipart-writer.ts";
import { StorageError, type AppendWriter, type ByteRange, type ObjectInfo, type PutOptions, type Storage } from "./storage.ts";

export interface S3StorageOptions {
  config: S3Config;
  /** Read when the bucket lacks a key under one of `fallbackPrefixes` (the shipped media). */
  fallback?: Storage;
  fallbackPrefixes?: readonly string[];
  /** Bytes per multipart part (tests); S3's minimum and default is 5 MiB. */
  partSize?: number;
}

export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    forcePathStyle: config.forcePathStyle,
    // Checksums only where S3 requires them: many S3-compatible stores reject the newer
    // default (CRC32 trailers on every upload).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

function isNotFound(error: unknown): boolean {
  if (!(error instanceof S3ServiceException)) return false;
  return error.$metadata.httpStatusCode === 404 || error.name === "NoSuchKey" || error.name === "NotFound";
}

export class S3Storage implements Storage {
  readonly client: S3Client;
  private readonly bucket: string;

  constructor(private readonly o: S3StorageOptions) {
    this.client = createS3Client(o.config);
    this.bucket = o.config.bucket;
  }

  async put(key: string, body: Buffer | Uint8Array | Readable, options: PutOptions = {}): Promise<ObjectInfo> {
    assertKey(key);
    const contentType = this.contentTypeFor(key, options.contentType);
    if (body instanceof Uint8Array) {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.length }));
      return this.mustStat(key);
    }
    // A stream of unknown length: parts as it arrives, so it is never held whole in memory.
    const writer = this.openWriter(key, { contentType });
    try {
      for await (const chunk of body) await writer.append(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Uint8Array));
      return await writer.finish();
    } catch (error) {
      await writer.abort().catch(() => undefined);
      throw error;
    }
  }

  /** An object written a slice at a time (multipart upload); readable once finished. */
  async openAppend(key: string, options: PutOptions = {}): Promise<AppendWriter> {
    return this.openWriter(key, options);
  }

  private openWriter(key: string, options: PutOptions = {}): S3MultipartWriter {
    assertKey(key);
    return new S3MultipartWriter({
      client: this.client,
      bucket: this.bucket,
      key,
      contentType: this.contentTypeFor(key, options.contentType),
      partSize: this.o.partSize,
      stat: (k) => this.stat(k),
    });
  }

  async get(key: string): Promise<{ body: Buffer; info: ObjectInfo } | null> {
    assertKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      const body = Buffer.from(await result.Body!.transformToByteArray());
      return { body, info: toInfo(key, result) };
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return (await this.fallbackFor(key)?.get(key)) ?? null;
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    assertKey(key);
    try {
      return toInfo(key, await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return (await this.fallbackFor(key)?.stat(key)) ?? null;
    }
  }

  async createReadStream(key: string, range: ByteRange = {}): Promise<Readable> {
    assertKey(key);
    const header = range.start === undefined && range.end === undefined ? undefined : `bytes=${range.start ?? 0}-${range.end ?? ""}`;
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: header }));
      return result.Body as Readable;
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const fallback = this.fallbackFor(key);
      if (fallback) return fallback.createReadStream(key, range);
      throw new StorageError("not_found", `No object with key ${key}`);
    }
  }

  async delete(key: string): Promise<boolean> {
    assertKey(key);
    // S3 answers a delete the same whether or not the object existed; ask first.
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    return true;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** Releases the client's sockets. */
  close(): void {
    this.client.destroy();
  }

  private fallbackFor(key: string): Storage | null {
    const { fallback, fallbackPrefixes = [] } = this.o;
    return fallback && fallbackPrefixes.some((p) => key.startsWith(`${p}/`)) ? fallback : null;
  }

  private contentTypeFor(key: string, given: string | undefined): string {
    if (given !== undefined && !isValidContentType(given)) {
      throw new StorageError("invalid_content_type", `Invalid content type: ${JSON.stringify(given)}`);
    }
    return given ?? contentTypeForKey(key);
  }

  private async mustStat(key: string): Promise<ObjectInfo> {
    const info = await this.stat(key);
    if (!info) throw new Error(`The object ${key} is missing right after it was written`);
    return info;
  }
}

function toInfo(key: string, head: { ContentLength?: number; ContentType?: string; LastModified?: Date; ETag?: string; ContentRange?: string }): ObjectInfo {
  // A ranged GET's ContentLength is the range's; the whole size is after the slash.
  const total = head.ContentRange ? Number(head.ContentRange.split("/")[1]) : head.ContentLength;
  const contentType = head.ContentType && isValidContentType(head.ContentType) ? head.ContentType : contentTypeForKey(key);
  const etag = head.ETag ? (head.ETag.startsWith('"') ? head.ETag : `"${head.ETag}"`) : `"${(total ?? 0).toString(16)}"`;
  return { key, size: total ?? 0, contentType, modifiedAt: head.LastModified ?? new Date(0), etag };
}

function assertKey(key: string): void {
  if (!isValidKey(key)) throw new StorageError("invalid_key", `Invalid object key: ${JSON.stringify(key)}`);
}
