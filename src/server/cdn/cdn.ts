import type { Readable } from 'node:stream';
import { create as contentDisposition } from 'content-disposition';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ID_PATTERN } from '../../api/routes.js';
import type { ServedFile } from '../cache/serving-cache.js';
import type { ServiceContext } from '../context.js';
import type { CdnOperationId } from '../contract/operations.js';
import { cdnRoutes } from '../contract-reader/contract.js';
import { ServiceError } from '../ground/errors.js';
import { healthzHandler, readyzHandler } from '../health/health-routes.js';
import { refusedRequest } from '../http/request-guard.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { answerInOurShape, corsHeaders, serverOptions } from '../http/server-options.js';
import { countServedBody } from '../metrics/cdn-traffic.js';
import { serviceFault } from '../rules/service-fault.js';
import { checkLink, type LinkParameters, signedCacheControl } from '../rules/signed-link.js';
import { answerDirectly, directFileId } from './direct-path.js';
import { fileAnswer } from './file-answer.js';
import { cdnServerFactory } from './memory-path.js';
import type { Servable } from './servable.js';
import { servableFile, servedFile } from './served-file.js';
import { servableVariant } from './variant-response.js';

/**
 * The CDN: `GET`/`HEAD` `/<id>` and `/<id>/<anything>` on its own origin, so a served
 * file can never act as the API's origin. Routing is on the id alone. A public file asked
 * for by a plain URL is answered before these routes (`memory-path.ts`, `direct-path.ts`),
 * as they would answer it; they answer everything else.
 */
export function buildCdnApp(ctx: ServiceContext): FastifyInstance {
  const options = serverOptions(ctx.config, 'any-origin', ctx.metrics?.http.parserRefusals('cdn'));
  const app = Fastify({
    ...options,
    loggerInstance: ctx.log,
    exposeHeadRoutes: false,
    serverFactory: cdnServerFactory(
      ctx.servingCache,
      options,
      (request, response) => {
        const id = directFileId(request);
        return id === null ? null : answerDirectly(ctx, id, request, response);
      },
      ctx.metrics,
    ),
  });
  answerInOurShape(app.server, ctx.log, ctx.config);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const serve = (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) =>
    serveFile(ctx, request, reply);
  // The declared paths (`/{id}`, `/{id}/{name}` with the name the rest of the path), GET and
  // HEAD, all served alike; the id is checked here, so that any other shape is this CDN's
  // own 404 (the API's path check answers the API's).
  const handlers: Record<
    CdnOperationId,
    (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => Promise<unknown>
  > = {
    serveFile: serve,
    headFile: serve,
    serveFileNamed: serve,
    headFileNamed: serve,
    // Static paths win over `/:id` in the router; no file id is asked for them.
    healthz: (request, reply) => healthzHandler(ctx, request, reply),
    readyz: (request, reply) => readyzHandler(ctx, request, reply),
  };
  for (const route of cdnRoutes()) {
    app.route({ method: route.method, url: route.url, handler: handlers[route.operationId] });
  }
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
  // The query, read once: a signed link's (`rules/signed-link.ts`), which proves itself before
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

  const answer = fileAnswer(request.headers, size, headers);
  if (answer.status === 304 || answer.status === 416) {
    return reply.code(answer.status).headers(answer.headers).send();
  }
  let body: Readable | Buffer | undefined;
  if (request.method === 'GET') {
    const { range } = answer;
    const opened = served.bytes
      ? range
        ? served.bytes.subarray(range.start, range.end + 1)
        : served.bytes
      : await served.open(range ?? undefined);
    // Deleted between the lookup and the open: it is gone, say so.
    if (!opened) return notFound(reply);
    body = opened;
    countServedBody(ctx.metrics, range, size);
  }
  return reply.code(answer.status).headers(answer.headers).send(body);
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
