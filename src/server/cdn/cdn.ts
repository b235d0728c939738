import type { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { ID_PATTERN, serviceRoutes } from '../../api/routes.js';
import type { ServiceContext } from '../context.js';
import type { FileRow } from '../db/metadata-store.js';
import { healthzHandler, readyzHandler } from '../health/health-routes.js';
import { ServiceError, serviceFault } from '../http/errors.js';
import { isRecognisable, mediaEssence } from '../http/media-type.js';
import { refusedRequest } from '../http/request-guard.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { answerInOurShape, corsHeaders, serverOptions } from '../http/server-options.js';
import { parseRange } from './byte-range.js';
import { cdnServerFactory } from './memory-path.js';
import type { Servable } from './servable.js';
import type { ServedFile } from './serving-cache.js';
import { checkLink, type LinkParameters, signedCacheControl } from './signed-link.js';
import { servableVariant } from './variants/variant-response.js';

/**
 * Types a browser may render in place. Everything else (HTML, SVG, XML, JavaScript and
 * anything unknown) could run script in the CDN's origin, so it is served as an
 * attachment under a sandboxing CSP.
 */
function isSafeInline(mime: string): boolean {
  const essence = mediaEssence(mime);
  if (essence === 'image/svg+xml') return false;
  // A media type is inline only when the recogniser knows it from bytes: a stored
  // `image/x-foo` may hold anything (HTML) that a browser could be talked into rendering.
  return (
    (/^(image|audio|video)\/[\w.+-]+$/.test(essence) && isRecognisable(essence)) ||
    essence === 'application/pdf' ||
    essence === 'text/plain'
  );
}

/** Files are immutable and ids never reused, so the id is a strong validator. */
function etagOf(row: FileRow): string {
  return `"${row.id}"`;
}

/**
 * The CDN: `GET`/`HEAD` `/<id>` and `/<id>/<anything>` on its own origin, so a served
 * file can never act as the API's origin. Routing is on the id alone.
 */
export function buildCdnApp(ctx: ServiceContext): FastifyInstance {
  const options = serverOptions(ctx.config, 'any-origin');
  const app = Fastify({
    ...options,
    loggerInstance: ctx.log,
    exposeHeadRoutes: false,
    serverFactory: cdnServerFactory(ctx.servingCache, options),
  });
  answerInOurShape(app.server, ctx.log, ctx.config);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const serve = (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
    serveFile(ctx, request, reply);
  // Static paths win over `/:id` in the router; no file id is asked for them.
  app.get(serviceRoutes.healthz(), (request, reply) => healthzHandler(ctx, request, reply));
  app.get(serviceRoutes.readyz(), (request, reply) => readyzHandler(ctx, request, reply));
  app.route({ method: ['GET', 'HEAD'], url: '/:id', handler: serve });
  app.route({ method: ['GET', 'HEAD'], url: '/:id/*', handler: serve });
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    const refused = refusedRequest(request.raw);
    if (refused) return sendError(reply, refused);
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));
  app.setErrorHandler((error, request, reply) => {
    // A client's mistake (an image parameter out of range, a file that is no image).
    if (error instanceof ServiceError) return sendError(reply, error);
    const fault = serviceFault(error);
    if (fault) request.log.warn({ err: error }, 'a store the CDN depends on failed');
    else request.log.error({ err: error }, 'CDN request failed');
    sendError(reply, fault ?? new ServiceError('internal_error'));
  });
  return app;
}

/** Every CDN error: the documented body, never cached, readable from any page. */
function sendError(reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .header('Cache-Control', 'no-store')
    .headers(corsHeaders(undefined, 'any-origin'))
    .header('Access-Control-Expose-Headers', REQUEST_ID_HEADER)
    .header(REQUEST_ID_HEADER, reply.request.id)
    .send(error.toBody(reply.request.id));
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendError(reply, new ServiceError('not_found', 'No file at this address.'));
}

async function serveFile(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const id = request.params.id;
  if (!ID_PATTERN.test(id)) return notFound(reply);
  // The query, read once: a signed link's (`signed-link.ts`), which proves itself before
  // any store is asked, and a variant's (`variants/`).
  const query = new URLSearchParams(queryOf(request.url));
  const access = checkLink(ctx.linkKey, id, query, ctx.now());
  if (access.kind === 'invalid')
    return sendError(reply, new ServiceError('invalid_signature', BAD_LINK));
  if (access.kind === 'expired') return sendError(reply, new ServiceError('url_expired', OLD_LINK));
  const file = await servedFile(ctx, id, request.method === 'GET', access.kind === 'signed');
  // A private file without a signed link is exactly an unknown id.
  if (!file || (file.row.visibility === 'private' && access.kind !== 'signed')) {
    return notFound(reply);
  }
  // Image variants (`variants/`): the one hook; null when the query asks for none. A signed
  // link's query holds only what it was signed with, so its variant is the signed one.
  const served =
    (await servableVariant(
      ctx,
      { url: request.url, query, method: request.method, accept: request.headers.accept },
      file,
    )) ?? servableFile(ctx, file);
  const { size } = served;
  const headers =
    access.kind === 'signed' ? signedHeaders(served, file, access, ctx.now()) : served.headers;

  // Only the validators are passed: `fresh` reads `Cache-Control: no-cache` as "never
  // 304", but fetch() adds exactly that to every request with If-None-Match, and this
  // server is the origin the revalidation is meant to reach.
  const validators = {
    'if-none-match': request.headers['if-none-match'],
    'if-modified-since': request.headers['if-modified-since'],
  };
  if (fresh(validators, { etag: headers.etag, 'last-modified': headers['last-modified'] })) {
    return reply.code(304).headers(headers).send();
  }

  let range: { start: number; end: number } | undefined;
  const rangeHeader = request.headers.range;
  if (
    typeof rangeHeader === 'string' &&
    rangeApplies(
      request.headers['if-range'],
      headers.etag as string,
      headers['last-modified'] as string,
    )
  ) {
    const asked = parseRange(rangeHeader, size);
    if (asked.kind === 'unsatisfiable') {
      return reply.code(416).headers(headers).header('Content-Range', `bytes */${size}`).send();
    }
    if (asked.kind === 'range') range = { start: asked.start, end: asked.end };
  }

  let body: Readable | Buffer | undefined;
  if (request.method === 'GET') {
    if (served.bytes) {
      body = range ? served.bytes.subarray(range.start, range.end + 1) : served.bytes;
    } else {
      const stream = await served.open(range);
      // Deleted between the lookup and the open: it is gone, say so.
      if (!stream) return notFound(reply);
      body = stream;
    }
  }
  reply
    .headers(headers)
    .header('content-length', String(range ? range.end - range.start + 1 : size));
  if (range) {
    reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  }
  return reply.send(body);
}

const BAD_LINK = 'The link was altered or was not issued by this service.';
const OLD_LINK = 'The link has expired; ask the site that gave it for a new one.';

/** The part of a request URL after `?` (empty when there is none). */
function queryOf(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? '' : url.slice(mark + 1);
}

/**
 * The headers of an answer to a valid signed link (the file, or the variant it names):
 * cacheable only by its holder and only until it expires (never `public` or `immutable`:
 * a shared cache must not serve it past `exp` or to anyone else), and an attachment when
 * the link was signed with `download`.
 */
function signedHeaders(
  served: Servable,
  file: ServedFile,
  access: { parameters: LinkParameters; exp: number },
  nowMs: number,
): Record<string, string> {
  const disposition = served.headers['content-disposition'] ?? '';
  return {
    ...served.headers,
    'cache-control': signedCacheControl(access.exp, nowMs),
    ...(access.parameters.download === '1'
      ? {
          'content-disposition': disposition.startsWith('attachment')
            ? disposition
            : disposition.replace(/^inline/, 'attachment') ||
              contentDisposition(file.row.name, { type: 'attachment' }),
        }
      : {}),
  };
}

/** A file as it is stored: its bytes from memory when the serving cache holds them. */
function servableFile(ctx: ServiceContext, file: ServedFile): Servable {
  return {
    size: file.row.size,
    headers: file.headers,
    bytes: file.bytes,
    open: (range) => ctx.blobs.get(file.row.id, range),
  };
}

/**
 * What serving `id` needs, from memory when the cache has it (`serving-cache.ts`), else
 * from the stores (and then kept: with the bytes, for a small file read by a GET; never a
 * private file). Null when there is no ready file with this id, or it is private and the
 * request is not `signed` by a valid link.
 */
async function servedFile(
  ctx: ServiceContext,
  id: string,
  wantsBytes: boolean,
  signed: boolean,
): Promise<ServedFile | null> {
  const cache = ctx.servingCache;
  const cached = cache.get(id);
  if (cached && !cache.options.trustRecords) {
    // Another instance may have deleted it: the row decides, the rest is immutable.
    const row = await ctx.db.getLiveFile(id);
    if (row?.status !== 'ready') {
      cache.forget(id);
      return null;
    }
  }
  if (cached && (cached.bytes || !wantsBytes || cached.row.size > cache.options.maxFileBytes)) {
    return cached;
  }
  const epoch = cache.epoch;
  const row = cached?.row ?? (await ctx.db.getLiveFile(id));
  if (row?.status !== 'ready') return null;
  // Unsigned, a private file is not there: not a byte of it is read.
  if (row.visibility === 'private' && !signed) return null;
  const file: ServedFile = {
    row,
    headers:
      cached?.headers ?? fileHeaders(row, etagOf(row), new Date(row.createdAt).toUTCString()),
    bytes: null,
    wholeHeaders: null,
  };
  if (wantsBytes && row.size <= cache.options.maxFileBytes) {
    const stream = await ctx.blobs.get(row.id);
    if (!stream) return null;
    file.bytes = await readWhole(stream, row.size);
    file.wholeHeaders = { ...file.headers, 'content-length': String(row.size) };
  }
  // A private file is never kept: no path can then answer it from memory without its
  // link being checked, and its unsigned 404 costs what an unknown id's does.
  if (row.visibility === 'public') cache.put(id, file, epoch);
  return file;
}

/** A small file's bytes, all of them (a store that ends short is a fault, not a file). */
async function readWhole(stream: Readable, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  if (bytes.length !== size) {
    throw new Error(`The store gave ${bytes.length} bytes of a ${size}-byte file.`);
  }
  return bytes;
}

/** Lower-case names, as the framework sends them: the memory path (cdn-memory-path.ts) sends these as they are. */
function fileHeaders(row: FileRow, etag: string, lastModified: string): Record<string, string> {
  const inline = isSafeInline(row.mime);
  return {
    'content-type': row.mime,
    etag,
    'last-modified': lastModified,
    'cache-control': 'public, max-age=31536000, immutable',
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': REQUEST_ID_HEADER,
    'cross-origin-resource-policy': 'cross-origin',
    'content-disposition': contentDisposition(row.name, { type: inline ? 'inline' : 'attachment' }),
    ...(inline ? {} : { 'content-security-policy': 'sandbox' }),
  };
}

/** `If-Range` with a validator that no longer matches means "send the whole thing". */
function rangeApplies(
  ifRange: string | string[] | undefined,
  etag: string,
  lastModified: string,
): boolean {
  if (ifRange === undefined) return true;
  if (typeof ifRange !== 'string') return false;
  return ifRange.trim() === etag || ifRange.trim() === lastModified;
}
