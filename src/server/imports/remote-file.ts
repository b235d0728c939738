import { type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Transform, type TransformCallback } from 'node:stream';
import { parse as parseContentDisposition } from 'content-disposition';
import type { ImportErrorCode } from '../../api/types.js';
import {
  parseTargetUrl,
  pinnedLookup,
  resolveTarget,
  type TargetOptions,
  TargetRefusedError,
} from '../ground/targets.js';

export type { ImportErrorCode };

export class ImportFailure extends Error {
  readonly code: ImportErrorCode;
  /** The remote server's answer, for `import_http_error`. */
  readonly status: number | undefined;
  /** The most bytes the file could have had, for `too_large`. */
  readonly limit: number | undefined;
  constructor(code: ImportErrorCode, message: string, status?: number, limit?: number) {
    super(message);
    this.name = 'ImportFailure';
    this.code = code;
    this.status = status;
    this.limit = limit;
  }
}

export interface RemoteFileOptions {
  /** Loopback, private and link-local targets allowed (`FILEHOST_IMPORT_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
  /** The most bytes the file may have: counted as they arrive, `Content-Length` not trusted. */
  maxBytes: number;
  /** The window of `progressBytes` (decisions.md: 30 s). */
  idleMs?: number;
  /**
   * What counts as progress within `idleMs`: fewer bytes than this in a whole window is a
   * stall, so a server that drips a byte now and then cannot hold an import open for ever.
   */
  progressBytes?: number;
  /** decisions.md: at most 5 redirects, each target checked again. */
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Tests only: see `TargetOptions.treatAsPublic`. */
  target?: TargetOptions;
  /** The `too_large` message (the limit's reason: the plan, a token); a plain one by default. */
  tooLargeMessage?: string;
}

export interface RemoteFile {
  /**
   * The body as sent (no `Content-Encoding` is undone: a gzip file is stored gzipped),
   * failing with an `ImportFailure` past `maxBytes` or on a stall.
   */
  body: Transform;
  /** From `Content-Disposition`, else the last segment of the final URL; null if neither. */
  name: string | null;
  /** The remote server's `Content-Type`, if any (the bytes decide the stored type). */
  contentType: string | null;
  /** Where the body came from after redirects. */
  url: URL;
  /** The `Content-Length` the server declared (a hint for progress only), or null. */
  declaredBytes: number | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** decisions.md, "Slow senders hold nothing": 16 KiB in any 30 s, or the import ends. */
const DEFAULT_IDLE_MS = 30_000;
/** The window slides by a thirtieth of itself. */
const WINDOW_STEPS = 30;
const DEFAULT_PROGRESS_BYTES = 16 * 1024;
const DEFAULT_MAX_REDIRECTS = 5;

/**
 * Opens `url` for an import: every hop's address is resolved and checked right before its
 * connection, which goes to that address (the webhooks' guard, `resolveTarget`), redirects
 * are followed up to the limit, and the answer's body comes back as a stream that counts
 * what arrives. The caller streams it into storage; nothing here holds the file.
 */
export async function openRemoteFile(start: URL, options: RemoteFileOptions): Promise<RemoteFile> {
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  let url = start;
  for (let hop = 0; ; hop++) {
    const answer = await requestOnce(url, options);
    const status = answer.statusCode ?? 0;
    if (REDIRECTS.has(status)) {
      answer.resume();
      const location = answer.headers.location;
      if (!location) {
        throw new ImportFailure('import_http_error', `${status} without a Location`, status);
      }
      if (hop >= maxRedirects) {
        throw new ImportFailure('import_failed', `more than ${maxRedirects} redirects`);
      }
      const next = parseTargetUrl(new URL(location, url).href);
      if (typeof next === 'string') {
        throw new ImportFailure('import_refused_target', `a redirect to an unusable URL: ${next}`);
      }
      url = next;
      continue;
    }
    if (status < 200 || status >= 300) {
      answer.resume();
      throw new ImportFailure('import_http_error', `the server answered ${status}`, status);
    }
    const header = answer.headers['content-length'];
    const declared = header === undefined ? Number.NaN : Number(header);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      answer.destroy();
      throw new ImportFailure(
        'too_large',
        options.tooLargeMessage ??
          `the file is ${declared} bytes, more than the ${options.maxBytes} allowed`,
        undefined,
        options.maxBytes,
      );
    }
    return {
      body: counted(answer, options),
      name: nameOf(answer, url),
      contentType: answer.headers['content-type'] ?? null,
      url,
      declaredBytes: Number.isSafeInteger(declared) && declared >= 0 ? declared : null,
    };
  }
}

/** One request to `url`, at the address checked for it; resolves with the answer's head. */
async function requestOnce(url: URL, options: RemoteFileOptions): Promise<IncomingMessage> {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  let target: Awaited<ReturnType<typeof resolveTarget>>;
  try {
    target = await resolveTarget(url, options.allowPrivate, options.target);
  } catch (error) {
    if (error instanceof TargetRefusedError) {
      throw new ImportFailure('import_refused_target', error.message);
    }
    throw error;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing: ClientRequest = send(url, {
      method: 'GET',
      lookup: pinnedLookup(target),
      agent: false,
      signal: options.signal,
      headers: {
        // Ask for the bytes as they are; whatever encoding comes anyway is stored as sent.
        'accept-encoding': 'identity',
        'user-agent': 'filehost-import',
      },
    });
    // No answer head within the idle time: the server holds the import without progress.
    outgoing.setTimeout(idleMs, () =>
      outgoing.destroy(new ImportFailure('import_timeout', `no answer within ${idleMs / 1000} s`)),
    );
    outgoing.on('response', (answer) => {
      outgoing.setTimeout(0);
      resolve(answer);
    });
    outgoing.on('error', (error) => reject(asImportFailure(error)));
    outgoing.end();
  });
}

/**
 * The body, counted: past `maxBytes` it fails with `too_large`; any window of `idleMs` in
 * which fewer than `progressBytes` arrive (and the body has not ended) fails with
 * `import_timeout`; a connection that ends before the body does fails with
 * `import_failed`.
 */
function counted(answer: IncomingMessage, options: RemoteFileOptions): Transform {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const progressBytes = options.progressBytes ?? DEFAULT_PROGRESS_BYTES;
  let total = 0;
  // Bytes per thirtieth of the window, for the last window: the window slides, so a server
  // that sends a burst at the end of each fixed window still counts as the drip it is.
  const steps: number[] = [];
  let inStep = 0;
  let watchedSince = Date.now();
  const stream = new Transform({
    // Room for a write to the store in flight while the socket keeps reading.
    highWaterMark: 2 * 1024 * 1024,
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      total += chunk.length;
      inStep += chunk.length;
      if (total > options.maxBytes) {
        callback(
          new ImportFailure(
            'too_large',
            options.tooLargeMessage ??
              `the file is larger than the ${options.maxBytes} bytes allowed`,
            undefined,
            options.maxBytes,
          ),
        );
        return;
      }
      callback(null, chunk);
    },
  });
  const watchdog = setInterval(() => {
    steps.push(inStep);
    inStep = 0;
    if (steps.length > WINDOW_STEPS) steps.shift();
    // Bytes waiting here for the store to take them: the store is slow, not the server
    // (which cannot send while this side does not read); that is not a stall of the server.
    if (stream.readableLength > 0 || stream.writableLength > 0) {
      steps.length = 0;
      watchedSince = Date.now();
      return;
    }
    if (Date.now() - watchedSince < idleMs) return;
    const inWindow = steps.reduce((sum, bytes) => sum + bytes, 0);
    if (inWindow < progressBytes) {
      fail(
        new ImportFailure(
          'import_timeout',
          `the server sent less than ${progressBytes / 1024} KiB in ${idleMs / 1000} s`,
        ),
      );
    }
  }, idleMs / WINDOW_STEPS);
  watchdog.unref();
  let failed = false;
  const fail = (error: Error) => {
    if (failed) return;
    failed = true;
    clearInterval(watchdog);
    // The stream first: destroying the answer reports an abort, which is not the cause.
    stream.destroy(error);
    answer.destroy();
  };
  answer.on('aborted', () =>
    fail(new ImportFailure('import_failed', 'the connection closed before the whole file arrived')),
  );
  answer.on('error', (error) => fail(asImportFailure(error)));
  answer.on('end', () => clearInterval(watchdog));
  stream.on('close', () => {
    clearInterval(watchdog);
    answer.destroy();
  });
  answer.pipe(stream);
  return stream;
}

function asImportFailure(error: unknown): ImportFailure {
  if (error instanceof ImportFailure) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ETIMEDOUT') return new ImportFailure('import_timeout', 'the connection timed out');
  return new ImportFailure(
    'import_failed',
    code ? `the connection failed (${code})` : 'the connection failed',
  );
}

/** The file's name as the remote server gives it, else from its URL. */
function nameOf(answer: IncomingMessage, url: URL): string | null {
  const disposition = answer.headers['content-disposition'];
  if (disposition) {
    try {
      const { filename } = parseContentDisposition(disposition).parameters;
      if (filename) return filename;
    } catch {
      // A malformed header names nothing; the URL may.
    }
  }
  const last = url.pathname.split('/').at(-1) ?? '';
  if (last === '') return null;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
