import multipart from '@fastify/multipart';
import type { ErrorObject } from 'ajv';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { MAX_ONE_REQUEST_BYTES } from '../../api/limits.js';
import {
  ALLOWED_METHODS,
  ALLOWED_REQUEST_HEADERS,
  EXPOSED_RESPONSE_HEADERS,
} from '../../api/routes.js';
import type { ServiceContext } from '../context.js';
import {
  type ApiOperationId,
  apiRoutes,
  fastifyRoute,
  type JsonSchema,
} from '../contract-reader/contract.js';
import { paramsValidator, refusal, validatorOf } from '../contract-reader/validate.js';
import { ERROR_MESSAGES } from '../ground/error-messages.js';
import { ServiceError } from '../ground/errors.js';
import { healthzHandler, readyzHandler } from '../health/health-routes.js';
import { BATCH_JSON_LIMIT, JSON_LIMIT } from '../http/body.js';
import { watchBodyPace } from '../http/body-pace.js';
import { refusedRequest } from '../http/request-guard.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { answerInOurShape, corsHeaders, serverOptions } from '../http/server-options.js';
import { countApiTraffic } from '../metrics/api-traffic.js';
import { serviceFault } from '../rules/service-fault.js';
import { LocalDiskBlobStore } from '../storage/local-disk/local-disk-store.js';
import { registerTusRoutes } from '../tus/tus-routes.js';
import { enterRoute, type RouteEntry } from './route-input.js';
import { completeBatchHandler } from './routes/complete-batch.js';
import { completeUploadHandler } from './routes/complete-upload.js';
import { deleteFileHandler } from './routes/delete-file.js';
import { listEventsHandler, redeliverEventHandler } from './routes/events.js';
import { getFileHandler } from './routes/get-file.js';
import { importHandler } from './routes/import.js';
import { listFilesHandler } from './routes/list-files.js';
import { registerLocalPartRoutes } from './routes/local-part.js';
import { openapiHandler } from './routes/openapi.js';
import { signUploadHandler } from './routes/sign-upload.js';
import { signedUrlHandler } from './routes/signed-url.js';
import { uploadHandler } from './routes/upload.js';
import { uploadBatchHandler } from './routes/upload-batch.js';
import { uploadStateHandler } from './routes/upload-state.js';
import { createUploadTokenHandler } from './routes/upload-tokens.js';
import { usageHandler } from './routes/usage.js';
import {
  createWebhookHandler,
  deleteWebhookHandler,
  listWebhooksHandler,
  WEBHOOK_JSON_LIMIT,
} from './routes/webhooks.js';

/**
 * Each operation the route declarations (contract/paths.ts) give the API: who may call it,
 * how its JSON body is read, and its handler. The table authenticates the caller, then
 * checks the body and query against the declaration, then calls the handler with them
 * (route-input.ts): no handler reads or checks its own JSON.
 */
const ROUTES: { [Id in ApiOperationId]: RouteEntry<Id> } = {
  // Their bodies are streamed to storage by their handlers, not read here.
  upload: { access: { upload: 'start' }, handle: uploadHandler },
  uploadBatch: { access: { upload: 'start' }, handle: uploadBatchHandler },
  listFiles: { access: {}, handle: listFilesHandler },
  getFile: { access: {}, handle: getFileHandler },
  deleteFile: { access: { secretOnly: true }, handle: deleteFileHandler },
  createSignedUrl: {
    access: { secretOnly: true },
    json: { limit: JSON_LIMIT },
    handle: signedUrlHandler,
  },
  signUpload: {
    access: { upload: 'start' },
    json: { limit: BATCH_JSON_LIMIT, batch: 'files' },
    handle: signUploadHandler,
  },
  importFromUrl: {
    access: { upload: 'start' },
    json: { limit: JSON_LIMIT },
    handle: importHandler,
  },
  uploadState: { access: { upload: 'continue' }, handle: uploadStateHandler },
  usage: { access: { secretOnly: true }, handle: usageHandler },
  createUploadToken: { access: { secretOnly: true }, json: {}, handle: createUploadTokenHandler },
  createWebhook: {
    access: { secretOnly: true },
    json: { limit: WEBHOOK_JSON_LIMIT },
    handle: createWebhookHandler,
  },
  listWebhooks: { access: { secretOnly: true }, handle: listWebhooksHandler },
  deleteWebhook: { access: { secretOnly: true }, handle: deleteWebhookHandler },
  listEvents: { access: { secretOnly: true }, handle: listEventsHandler },
  redeliverEvent: { access: { secretOnly: true }, handle: redeliverEventHandler },
  completeUpload: { access: { upload: 'continue' }, json: {}, handle: completeUploadHandler },
  completeUploads: {
    access: { upload: 'continue' },
    json: { limit: BATCH_JSON_LIMIT, indexed: 'uploads' },
    handle: completeBatchHandler,
  },
  openapi: { access: 'public', handle: openapiHandler },
  // Health answers the balancer and the orchestrator: no key, no body.
  healthz: {
    access: 'public',
    handle: (ctx, { request, reply }) => healthzHandler(ctx, request, reply),
  },
  readyz: {
    access: 'public',
    handle: (ctx, { request, reply }) => readyzHandler(ctx, request, reply),
  },
};

/**
 * The API: routing, CORS, and the one place that turns anything thrown into a response.
 * Bodies are never parsed by the framework: uploads stream straight to storage, and the
 * route table reads the few small JSON bodies (`ROUTES`).
 */
export async function buildApiApp(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = Fastify({
    ...serverOptions(ctx.config, 'echo-origin', ctx.metrics?.http.parserRefusals('api')),
    loggerInstance: ctx.log,
  });
  answerInOurShape(app.server, ctx.log, ctx.config);
  watchBodyPace(app.server, { windowMs: ctx.config.bodyProgressWindowSeconds * 1000 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  await app.register(multipart, {
    limits: {
      // One byte over the cap, so our own counter (which knows the exact limit and the
      // documented error) trips first.
      fileSize: MAX_ONE_REQUEST_BYTES + 1,
      files: 4,
      fields: 20,
      fieldSize: 64 * 1024,
      parts: 30,
      headerPairs: 50,
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.headers(corsHeaders(request.headers.origin, 'echo-origin'));
    reply.header('Access-Control-Expose-Headers', EXPOSED_RESPONSE_HEADERS.join(', '));
    const refused = refusedRequest(request.raw);
    if (refused) throw refused;
  });
  if (ctx.metrics) countApiTraffic(app, ctx.metrics);

  // Fastify checks each route's path parameters against their schema (the generated
  // document's, see contract-reader/contract.ts) before the handler: `paramsValidator`.
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'params'
      ? paramsValidator(schema as Parameters<typeof paramsValidator>[0])
      : validatorOf(schema as JsonSchema),
  );

  // A preflight carries no key, so it is answered alike for every origin; the real
  // request is where the allowlist is enforced.
  app.options('*', async (_request, reply) => {
    reply
      .code(204)
      .header('Access-Control-Allow-Methods', ALLOWED_METHODS.join(', '))
      .header('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS.join(', '))
      .header('Access-Control-Max-Age', '600')
      .send();
  });

  for (const route of apiRoutes()) {
    const entry = ROUTES[route.operationId] as RouteEntry<ApiOperationId>;
    app.route({ ...fastifyRoute(route), handler: enterRoute(ctx, route, entry) });
  }
  // The local-disk store receives parts here; S3 receives them at its own URLs.
  if (ctx.blobs instanceof LocalDiskBlobStore) registerLocalPartRoutes(app, ctx.blobs);
  registerTusRoutes(app, ctx);

  handleErrors(app);
  return app;
}

/** Unknown routes and anything thrown become the documented JSON error, and only that. */
export function handleErrors(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    sendError(
      reply,
      new ServiceError('not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
    );
  });
  app.setErrorHandler((error, request, reply) => {
    sendError(reply, toServiceError(error, request));
  });
}

function toServiceError(error: unknown, request: FastifyRequest): ServiceError {
  if (error instanceof ServiceError) return error;
  const fault = serviceFault(error);
  if (fault) {
    request.log.warn({ err: error }, 'a store the service depends on failed');
    return fault;
  }
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.validation) {
    // Bodies are read and checked by the route table once the caller is known
    // (route-input.ts); path parameters answer a ServiceError of their own (`paramsValidator`).
    return refusal(fastifyError.validation[0] as ErrorObject | undefined);
  }
  const status = fastifyError.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    // The framework's own 4xx (a bad URL, a bad header value): the client's mistake.
    return new ServiceError('invalid_request', fastifyError.message);
  }
  if (request.raw.destroyed || request.raw.errored) {
    // The client went away mid-request; nobody will read this answer.
    return new ServiceError('invalid_request', 'The request was cut off.');
  }
  request.log.error({ err: error }, 'request failed');
  return new ServiceError('internal_error', ERROR_MESSAGES.internal_error);
}

/** Early answers reach the client whatever is left of its body: `lingering-close.ts`. */
function sendError(reply: FastifyReply, error: ServiceError): void {
  reply
    .code(error.status)
    .headers(error.headers)
    .header(REQUEST_ID_HEADER, reply.request.id)
    .send(error.toBody(reply.request.id));
}
