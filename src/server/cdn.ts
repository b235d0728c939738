import type { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { ID_PATTERN } from '../api/routes.js';
import { parseRange } from './byte-range.js';
import type { ServiceContext } from './context.js';
import type { FileRow } from './db/metadata-store.js';
import { ServiceError, serviceFault } from './errors.js';
import { answerInOurShape, serverOptions } from './http-options.js';
import { mediaEssence } from './media-type.js';
import { refusedRequest } from './request-guard.js';

/**
 * Types a browser may render in place. Everything else (HTML, SVG, XML, JavaScript and
 * anything unknown) could run script in the CDN's origin, so it is served as an
 * attachment under a sandboxing CSP.
 */
function isSafeInline(mime: string): boolean {
  const essence = mediaEssence(mime);
  if (essence === 'image/svg+xml') return false;
  return (
    /^(image|audio|video)\/[\w.+-]+$/.test(essence) ||
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
  const app = Fastify({
    ...serverOptions(ctx.config),
    loggerInstance: ctx.log,
    exposeHeadRoutes: false,
  });
  answerInOurShape(app.server);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const serve = (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
    serveFile(ctx, request, reply);
  app.route({ method: ['GET', 'HEAD'], url: '/:id', handler: serve });
  app.route({ method: ['GET', 'HEAD'], url: '/:id/*', handler: serve });
  app.addHook('onRequest', async (request, reply) => {
    const refused = refusedRequest(request);
    if (refused) return sendError(reply, refused);
  });
  app.setNotFoundHandler((_request, reply) => notFound(reply));
  app.setErrorHandler((error, request, reply) => {
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
    .header('Access-Control-Allow-Origin', '*')
    .send(error.toBody());
}

function notFound(reply: FastifyReply): FastifyReply {
  return sendError(reply, new ServiceError('not_found', 'No file at this address.'));
}

async function serveFile(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  if (!ID_PATTERN.test(request.params.id)) return notFound(reply);
  const row = await ctx.db.getLiveFile(request.params.id);
  if (row?.status !== 'ready') return notFound(reply);

  const etag = etagOf(row);
  const lastModified = new Date(row.createdAt).toUTCString();
  // Only the validators are passed: `fresh` reads `Cache-Control: no-cache` as "never
  // 304", but fetch() adds exactly that to every request with If-None-Match, and this
  // server is the origin the revalidation is meant to reach.
  const validators = {
    'if-none-match': request.headers['if-none-match'],
    'if-modified-since': request.headers['if-modified-since'],
  };
  if (fresh(validators, { etag, 'last-modified': lastModified })) {
    return reply
      .code(304)
      .headers(fileHeaders(row, etag, lastModified))
      .send();
  }

  let range: { start: number; end: number } | undefined;
  const rangeHeader = request.headers.range;
  if (
    typeof rangeHeader === 'string' &&
    rangeApplies(request.headers['if-range'], etag, lastModified)
  ) {
    const asked = parseRange(rangeHeader, row.size);
    if (asked.kind === 'unsatisfiable') {
      return reply
        .code(416)
        .headers(fileHeaders(row, etag, lastModified))
        .header('Content-Range', `bytes */${row.size}`)
        .send();
    }
    if (asked.kind === 'range') range = { start: asked.start, end: asked.end };
  }

  let stream: Readable | null = null;
  if (request.method === 'GET') {
    stream = await ctx.blobs.get(row.id, range);
    // Deleted between the lookup and the open: it is gone, say so.
    if (!stream) return notFound(reply);
  }
  reply
    .headers(fileHeaders(row, etag, lastModified))
    .header('Content-Length', String(range ? range.end - range.start + 1 : row.size));
  if (range) {
    reply.code(206).header('Content-Range', `bytes ${range.start}-${range.end}/${row.size}`);
  }
  return reply.send(stream ?? undefined);
}

function fileHeaders(row: FileRow, etag: string, lastModified: string): Record<string, string> {
  const inline = isSafeInline(row.mime);
  return {
    'Content-Type': row.mime,
    ETag: etag,
    'Last-Modified': lastModified,
    'Cache-Control': 'public, max-age=31536000, immutable',
    'Accept-Ranges': 'bytes',
    'X-Content-Type-Options': 'nosniff',
    'Access-Control-Allow-Origin': '*',
    'Cross-Origin-Resource-Policy': 'cross-origin',
    'Content-Disposition': contentDisposition(row.name, { type: inline ? 'inline' : 'attachment' }),
    ...(inline ? {} : { 'Content-Security-Policy': 'sandbox' }),
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
