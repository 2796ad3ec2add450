import { randomUUID } from "node:crypto";
import { createWriteStream, type Stats } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { ROOT_DIR } from "../paths.ts";
import { contentTypeForKey, isValidContentType, isValidKey } from "./keys.ts";
import { StorageError, type AppendWriter, type ByteRange, type ObjectInfo, type PutOptions, type Storage } from "./storage.ts";

/** A folder served read-only under a key prefix, e.g. shipped assets under "media". */
export interface ReadOnlyMount {
  prefix: string;
  dir: string;
}

export interface LocalStorageOptions {
  /** Writable root, normally `<DATA_DIR>/objects`. */
  root: string;
  /** Consulted in order when the writable root lacks a key, so operators can override shipped files. */
  readOnlyMounts?: readonly ReadOnlyMount[];
}

/** The committed `assets/media` folder, from the repository's root so it works from any cwd. */
export const SHIPPED_MEDIA_DIR = path.join(ROOT_DIR, "assets/media");

export function objectsRoot(dataDir: string): string {
  return path.join(dataDir, "objects");
}

/** `<DATA_DIR>/objects`, with the shipped media readable as `media/<file>`. */
export function createDefaultStorage(dataDir: string): Storage {
  return createLocalStorage({
    root: objectsRoot(dataDir),
    readOnlyMounts: [{ prefix: "media", dir: SHIPPED_MEDIA_DIR }],
  });
}

export function createLocalStorage(options: LocalStorageOptions): Storage {
  return new LocalStorage(options);
}

interface Located {
  file: string;
  stats: Stats;
}

// Content types live in a dot-file beside the object; keys cannot start with ".",
// so sidecars and temporary files can never collide with or be read as objects.
const sidecarOf = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.meta.json`);
const tempOf = (file: string) => path.join(path.dirname(file), `.${path.basename(file)}.${randomUUID()}.tmp`);

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  // ENOTDIR: a key such as "a/b" when "a" is an object, not a folder.
  return code === "ENOENT" || code === "ENOTDIR";
}

class LocalStorage implements Storage {
  private readonly root: string;
  private readonly mounts: readonly ReadOnlyMount[];

  constructor(options: LocalStorageOptions) {
    this.root = path.resolve(options.root);
    this.mounts = (options.readOnlyMounts ?? []).map((m) => ({
      prefix: m.prefix.replace(/\/+$/, ""),
      dir: path.resolve(m.dir),
    }));
  }

  /** The target path of a write, its folder created, after refusing a malformed content type. */
  private async prepareWrite(key: string, options: PutOptions): Promise<{ file: string; contentType: string | undefined }> {
    const file = this.writablePath(key);
    const { contentType } = options;
    if (contentType !== undefined && !isValidContentType(contentType)) {
      throw new StorageError("invalid_content_type", `Invalid content type: ${JSON.stringify(contentType)}`);
    }
    await mkdir(path.dirname(file), { recursive: true });
    return { file, contentType };
  }

  async put(key: string, body: Buffer | Uint8Array | Readable, options: PutOptions = {}): Promise<ObjectInfo> {
    const { file, contentType } = await this.prepareWrite(key, options);
    // Write beside the target and rename, so readers never see a half-written object.
    const temp = tempOf(file);
    try {
      if (body instanceof Uint8Array) await writeFile(temp, body, { flag: "wx" });
      else await pipeline(body, createWriteStream(temp, { flags: "wx" }));
      if (contentType === undefined) await rm(sidecarOf(file), { force: true });
      else await writeAtomically(sidecarOf(file), JSON.stringify({ contentType }));
      await rename(temp, file);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return this.infoOf(key, { file, stats: await stat(file) });
  }

  /** Appends go to a temporary file beside the target, renamed into place by finish. */
  async openAppend(key: string, options: PutOptions = {}): Promise<AppendWriter> {
    const { file, contentType } = await this.prepareWrite(key, options);
    const temp = tempOf(file);
    const handle = await open(temp, "wx");
    let size = 0;
    let closed = false;
    const release = async () => {
      if (closed) return;
      closed = true;
      await handle.close();
    };
    return {
      key,
      get size() {
        return size;
      },
      append: async (chunk) => {
        if (closed) throw new Error(`append to a closed object: ${key}`);
        let at = 0;
        while (at < chunk.length) {
          const { bytesWritten } = await handle.write(chunk, at, chunk.length - at, size + at);
          at += bytesWritten;
        }
        size += chunk.length;
      },
      finish: async ({ head } = {}) => {
        if (closed) throw new Error(`finish of a closed object: ${key}`);
        try {
          if (head) {
            if (head.length > size) throw new Error("head is longer than what was written");
            await handle.write(head, 0, head.length, 0);
          }
          await release();
          if (contentType === undefined) await rm(sidecarOf(file), { force: true });
          else await writeAtomically(sidecarOf(file), JSON.stringify({ contentType }));
          await rename(temp, file);
        } catch (error) {
          await release().catch(() => {});
          await rm(temp, { force: true });
          throw error;
        }
        return this.infoOf(key, { file, stats: await stat(file) });
      },
      abort: async () => {
        await release().catch(() => {});
        await rm(temp, { force: true });
      },
    };
  }

  async get(key: string): Promise<{ body: Buffer; info: ObjectInfo } | null> {
    const found = await this.locate(key);
    if (!found) return null;
    try {
      const body = await readFile(found.file);
      return { body, info: await this.infoOf(key, found) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async stat(key: string): Promise<ObjectInfo | null> {
    const found = await this.locate(key);
    return found ? this.infoOf(key, found) : null;
  }

  async createReadStream(key: string, range: ByteRange = {}): Promise<Readable> {
    const found = await this.locate(key);
    if (found) {
      try {
        const handle = await open(found.file, "r");
        return handle.createReadStream({ start: range.start, end: range.end, autoClose: true });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    throw new StorageError("not_found", `No object with key ${key}`);
  }

  async delete(key: string): Promise<boolean> {
    const file = this.writablePath(key);
    try {
      await unlink(file);
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
    await rm(sidecarOf(file), { force: true });
    return true;
  }

  async exists(key: string): Promise<boolean> {
    return (await this.locate(key)) !== null;
  }

  private writablePath(key: string): string {
    assertKey(key);
    return inside(this.root, key);
  }

  private async locate(key: string): Promise<Located | null> {
    const candidates = [this.writablePath(key)];
    for (const mount of this.mounts) {
      if (key.startsWith(`${mount.prefix}/`)) candidates.push(inside(mount.dir, key.slice(mount.prefix.length + 1)));
    }
    for (const file of candidates) {
      try {
        const stats = await stat(file);
        if (stats.isFile()) return { file, stats };
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return null;
  }

  private async infoOf(key: string, { file, stats }: Located): Promise<ObjectInfo> {
    return {
      key,
      size: stats.size,
      contentType: (await readSidecarType(file)) ?? contentTypeForKey(key),
      modifiedAt: stats.mtime,
      etag: `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
    };
  }
}

function assertKey(key: string): void {
  if (!isValidKey(key)) throw new StorageError("invalid_key", `Invalid object key: ${JSON.stringify(key)}`);
}

// Second line of defence behind key validation: the resolved path must stay under its root.
function inside(root: string, relativeKey: string): string {
  const file = path.resolve(root, ...relativeKey.split("/"));
  if (!file.startsWith(root + path.sep)) throw new StorageError("invalid_key", "Object key escapes the storage root");
  return file;
}

async function readSidecarType(file: string): Promise<string | null> {
  try {
    const parsed: unknown = JSON.parse(await readFile(sidecarOf(file), "utf8"));
    const contentType = (parsed as { contentType?: unknown } | null)?.contentType;
    return typeof contentType === "string" && isValidContentType(contentType) ? contentType : null;
  } catch (error) {
    // A missing or corrupt sidecar only loses the explicit type; the extension still gives one.
    if (isMissing(error) || error instanceof SyntaxError) return null;
    throw error;
  }
}

async function writeAtomically(file: string, data: string): Promise<void> {
  const temp = tempOf(file);
  try {
    await writeFile(temp, data, { flag: "wx" });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
