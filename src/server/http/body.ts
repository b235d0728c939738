import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { fail, ServiceError } from '../ground/errors.js';

/** `Content-Length` as a number; undefined when absent (a chunked body). */
export function contentLength(request: FastifyRequest): number | undefined {
  const raw = request.headers['content-length'];
  if (raw === undefined) return undefined;
  // Node already rejects malformed values; this keeps the type honest.
  if (!/^\d+$/.test(raw)) fail('invalid_request', 'Content-Length is not a number.');
  return Number(raw);
}

/**
 * The request body as chunks. Stopping early (a limit, a bad byte count) must not destroy
 * the request: that would reset the connection before the error answer goes out.
 */
export function bodyChunks(body: Readable): AsyncIterable<Buffer> {
  return body.iterator({ destroyOnReturn: false });
}

/**
 * Passes bytes through while counting them, failing the stream the moment `max` would be
 * exceeded, so an oversized chunked body is refused without storing what lies past it.
 */
export async function* limitBytes(
  source: AsyncIterable<Buffer>,
  max: number,
  tooMany: () => ServiceError,
): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of source) {
    seen += chunk.length;
    if (seen > max) throw tooMany();
    yield chunk;
  }
}

/** Like `limitBytes`, and also fails when the source ends short of `exact` bytes. */
export async function* exactBytes(
  source: AsyncIterable<Buffer>,
  exact: number,
  mismatch: () => ServiceError,
): AsyncGenerator<Buffer> {
  let seen = 0;
  for await (const chunk of limitBytes(source, exact, mismatch)) {
    seen += chunk.length;
    yield chunk;
  }
  if (seen !== exact) throw mismatch();
}

/** The limit of a JSON body holding one entry (a single sign or complete). */
export const JSON_LIMIT = 64 * 1024;

/**
 * Bodies of the batch calls: 100 entries of up to 40 KiB each (a sign entry with the most
 * metadata allowed is about 28 KiB), so a batch of entries that are valid alone fits.
 */
export const BATCH_JSON_LIMIT = 4 * 1024 * 1024;

/**
 * How a JSON body is read: at most `limit` bytes, whole within `deadlineMs`. Uploads have
 * no deadline (a slow link may take hours; an idle timeout cuts only a connection on which
 * nothing moves), but a body of a few KiB that trickles in a byte a minute is a connection
 * held for nothing (`FILEHOST_JSON_BODY_TIMEOUT`).
 */
export interface JsonBodyOptions {
  limit?: number;
  deadlineMs: number;
}

/**
 * Reads a small JSON body. Bodies are never parsed by the framework (uploads stream), so
 * handlers that want JSON ask for it here. An empty body reads as `undefined`; one not
 * whole by the deadline is `408 request_timeout`, and the connection is closed.
 */
export async function readJson(
  request: FastifyRequest,
  options: JsonBodyOptions,
): Promise<unknown> {
  return (await readSizedJson(request, options)).value;
}

/**
 * `readJson`, also answering the body's size: a route that takes one entry or a batch of
 * them reads up to the batch limit and holds a single entry to the ordinary one.
 */
export async function readSizedJson(
  request: FastifyRequest,
  { limit = JSON_LIMIT, deadlineMs }: JsonBodyOptions,
): Promise<{ value: unknown; bytes: number }> {
  const type = request.headers['content-type'];
  if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    fail('invalid_request', 'The body must be JSON (Content-Type: application/json).');
  }
  const length = contentLength(request);
  const tooLarge = `The JSON body is larger than ${limit / 1024} KiB.`;
  if (length !== undefined && length > limit) fail('invalid_request', tooLarge);
  const chunks: Buffer[] = [];
  const reading = (async () => {
    for await (const chunk of limitBytes(
      bodyChunks(request.raw),
      limit,
      () => new ServiceError('invalid_request', tooLarge),
    )) {
      chunks.push(chunk);
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ServiceError('request_timeout', undefined, {
            extra: { seconds: deadlineMs / 1000 },
            headers: { Connection: 'close' },
          }),
        ),
      deadlineMs,
    );
  });
  // Once answered, the rest of a late body is no one's: its reading may end any way.
  reading.catch(() => {});
  try {
    await Promise.race([reading, late]);
  } finally {
    clearTimeout(timer);
  }
  const body = Buffer.concat(chunks);
  const text = body.toString('utf8');
  if (text.trim() === '') return { value: undefined, bytes: body.length };
  try {
    return { value: JSON.parse(text), bytes: body.length };
  } catch {
    fail('invalid_request', 'The body is not valid JSON.');
  }
}

/** The deadline of JSON bodies, from the service's configuration. */
export function jsonDeadline(ctx: { config: { jsonBodyTimeoutSeconds: number } }): number {
  return ctx.config.jsonBodyTimeoutSeconds * 1000;
}
