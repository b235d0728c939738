import { createReadStream, openAsBlob } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import type { FileRecord } from '../api/types.js';
import type { FilehostClient } from './client.js';
import { fingerprintOf } from './fingerprint.js';
import type { ResumeStore, UploadFileOptions, UploadSource } from './options.js';
import type { RememberedUpload } from './upload-sequence.js';

/**
 * A file on disk as an upload source for `FilehostClient.uploadFile` in Node: each part is
 * read as a stream of its byte range, so no part, let alone the file, is held in memory.
 * Its fingerprint (for `resume`) is the full path, size, modification time and a hash of
 * the first and last MiB.
 */
export async function fileSource(path: string, type?: string): Promise<UploadSource> {
  const full = resolve(path);
  const info = await stat(full);
  if (!info.isFile()) throw new TypeError(`${path} is not a file`);
  return {
    size: info.size,
    name: basename(full),
    type,
    // Read only for a resume store: an upload without one need not open the file twice.
    // The fingerprint of `<file-uploader>`, with the full path for the name.
    fingerprint: async () => fingerprintOf(await openAsBlob(full), [full, info.size, info.mtimeMs]),
    slice: (start, end) =>
      Readable.toWeb(createReadStream(full, { start, end: end - 1 })) as ReadableStream<Uint8Array>,
  };
}

/** Where `fileResumeStore` keeps unfinished uploads unless told: the user's cache folder. */
export function defaultResumeFile(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'filehost', 'uploads.json');
}

/**
 * Unfinished uploads remembered in a JSON file (by default in the user's cache folder), so
 * that a run cut off (a crash, a kill, a lost connection) is resumed by the next run of the
 * same file. Each change is written to a temporary file and renamed over the old one, so a
 * kill never leaves it half written; two processes writing at once may lose one's entry
 * (that upload then starts afresh, and the one left behind expires on the service).
 */
export function fileResumeStore(path = defaultResumeFile()): ResumeStore {
  const read = async (): Promise<Record<string, unknown>> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      // None yet, or unreadable: nothing to resume.
      return {};
    }
  };
  const write = async (entries: Record<string, unknown>): Promise<void> => {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify(entries));
    await rename(temporary, path);
  };
  return {
    async get(key) {
      return rememberedUpload((await read())[key]);
    },
    async set(key, upload) {
      // The file is the user's own (their cache folder): the token lives as long as the upload.
      await write({ ...(await read()), [key]: { id: upload.id, token: upload.token } });
    },
    async delete(key) {
      const entries = await read();
      if (!(key in entries)) return;
      delete entries[key];
      await write(entries);
    },
  };
}

/** An entry of the resume file: `{ id, token }`, or an id alone as files before tokens kept it. */
function rememberedUpload(value: unknown): RememberedUpload | undefined {
  if (typeof value === 'string') return { id: value, token: null };
  if (!value || typeof value !== 'object') return undefined;
  const { id, token } = value as { id?: unknown; token?: unknown };
  if (typeof id !== 'string') return undefined;
  return { id, token: typeof token === 'string' ? token : null };
}

/**
 * Uploads a file from disk by its path, resuming an upload of the same file cut off before
 * (see `fileResumeStore`): all a resume needs is the path.
 */
export async function uploadPath(
  client: FilehostClient,
  path: string,
  options: UploadFileOptions & { type?: string } = {},
): Promise<FileRecord> {
  return client.uploadFile(await fileSource(path, options.type), {
    resume: fileResumeStore(),
    ...options,
  });
}

export { verifyWebhook, WebhookVerificationError } from './webhook-verify.js';
