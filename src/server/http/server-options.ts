import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import {
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { ServiceConfig } from '../ground/config.js';
import { ERROR_MESSAGES } from '../ground/error-messages.js';
import { ServiceError } from '../ground/errors.js';
import { capConnectionsPerClient } from './connection-cap.js';
import { type LingerLog, lingerAfterEarlyAnswers } from './lingering-close.js';
import { MAX_URL_BYTES } from './request-guard.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

/**
 * Timeouts for large uploads: Node's 5-minute `requestTimeout` would cut a slow 100 MiB
 * upload, so it is off; instead a connection on which no byte moves for the idle timeout
 * is cut. Headers must still arrive promptly.
 */
export function serverOptions(
  config: ServiceConfig,
  cors: RefusalCors = 'echo-origin',
  parserRefused?: ParserRefusalCount,
): FastifyServerOptions {
  return {
    requestTimeout: 0,
    connectionTimeout: config.idleTimeoutSeconds * 1000,
    keepAliveTimeout: keepAliveMs(config),
    // Per-request lines would drown what matters; errors are logged where they happen.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    // Every request is named by `X-Request-Id` (the caller's if sane, `request-id.ts`): the
    // id of its log lines (`reqId`), its answer's header and its error body's `requestId`.
    requestIdHeader: false,
    genReqId: (request) => requestIdOf(request.headers['x-request-id']),
    return503OnClosing: true,
    routerOptions: { maxParamLength: 500 },
    // `request.ip` (rate limits) reads X-Forwarded-For only as far as the operator trusts it.
    ...(config.trustProxy === undefined ? {} : { trustProxy: trustProxy(config.trustProxy) }),
    clientErrorHandler: (error, socket) => clientErrorHandler(error, socket, cors, parserRefused),
    frameworkErrors: (error, request, reply) => frameworkErrors(error, request, reply, cors),
  };
}

/**
 * How long a kept-alive connection is kept between requests. Behind a proxy (one is
 * trusted) the proxy's idle timeout must run out first, so that it never sends a request
 * on a connection the instance is closing: nginx (its upstream `keepalive_timeout`) and
 * cloud load balancers keep idle connections 60 s, and nginx answers a POST lost that way
 * `502`, as it resends no POST (test/server/http/keep-alive.test.ts). 72 s is Fastify's
 * default, chosen for the same reason. Facing clients directly, Node's 5 s: every idle
 * connection holds a place in the per-address cap (`connection-cap.ts`), which the users
 * behind one NAT share, and the clients that keep connections send again a request lost to
 * the race (browsers by themselves, `FilehostClient` in Node). A longer one would give an
 * abuser nothing: a connection that sends no request is kept the idle timeout (60 s) anyway.
 */
export function keepAliveMs(config: Pick<ServiceConfig, 'trustProxy'>): number {
  return config.trustProxy === undefined ? 5_000 : 72_000;
}

/**
 * How a refusal by the router is made readable to pages, as the server's other answers
 * are: the API echoes the request's `Origin` (with `Vary: Origin`); the CDN answers every
 * origin (`*`).
 */
export type RefusalCors = 'echo-origin' | 'any-origin';

/**
 * The CORS headers of an answer under `policy`, for a request that sent `origin` (if it
 * did): the one place both servers' answers, their refusals and raw errors take them from.
 */
export function corsHeaders(
  origin: string | undefined,
  policy: RefusalCors,
): Record<string, string> {
  if (policy === 'any-origin') return { 'Access-Control-Allow-Origin': '*' };
  return {
    ...(origin === undefined ? {} : { 'Access-Control-Allow-Origin': origin }),
    Vary: 'Origin',
  };
}

/**
 * What the router refuses before any hook runs (a path of malformed percent-encoding, a
 * path parameter past its length limit) answered in the documented shape: the framework's
 * own codes never reach a client. An id of absurd length names nothing: `404`.
 */
function frameworkErrors(
  error: { code?: string },
  request: FastifyRequest,
  reply: FastifyReply,
  cors: RefusalCors,
): void {
  const failure =
    Buffer.byteLength(request.raw.url ?? '') > MAX_URL_BYTES
      ? new ServiceError('uri_too_long')
      : error.code === 'FST_ERR_BAD_URL'
        ? new ServiceError('invalid_request', 'The URL has malformed percent-encoding.')
        : new ServiceError('not_found', 'No such id.');
  reply
    .headers(corsHeaders(request.headers.origin, cors))
    .code(failure.status)
    .header('Cache-Control', 'no-store')
    .header(REQUEST_ID_HEADER, request.id)
    .send(failure.toBody(request.id));
}

/** A hop count trusts that many proxies in front of us (the hops nearest to this server). */
function trustProxy(
  setting: number | string[],
): string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

/**
 * The answer each connection is giving (its request is `req`), so an error on it can wait
 * its turn, and a stopping service knows what is under way (`start/draining.ts`).
 */
const exchangesInFlight = new WeakMap<Socket, ServerResponse>();

/**
 * The answer `socket` is giving, or gave last (then `closed`), on a server set up by
 * `answerInOurShape`.
 */
export function answerInFlight(socket: Socket): ServerResponse | undefined {
  return exchangesInFlight.get(socket);
}

/** A raw HTTP answer in the documented JSON shape, for requests no route ever sees. */
function rawError(status: string, code: string, message: string, cors = ''): string {
  // Its bytes never became a request: a new id, which nothing the client sent can name.
  const requestId = requestIdOf(undefined);
  const body = JSON.stringify({ error: { code, message, requestId } });
  return `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\n${cors}Connection: close\r\n\r\n${body}`;
}

/** What Node's parser had received when it gave up (`rawPacket`), if it says. */
function receivedBytes(error: NodeJS.ErrnoException): Buffer | undefined {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) ? raw : undefined;
}

/**
 * The CORS lines of an answer to bytes that never became a request, so a page can still
 * read why: `*` on the CDN; on the API the `Origin` the client sent, when it is among the
 * bytes received (a header of printable characters only: nothing of it can end the line).
 */
function rawCors(received: Buffer | undefined, cors: RefusalCors): string {
  const origin = /\r\norigin:[ \t]*([\x21-\x7e]+)[ \t]*\r\n/i.exec(
    received?.toString('latin1') ?? '',
  )?.[1];
  return Object.entries(corsHeaders(origin, cors))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}

/**
 * Told of each answer written for bytes Node's parser refused (`400`, `414`, `431`), with the
 * method the bytes began with (no route, no request object: metrics count it as `unmatched`).
 */
export type ParserRefusalCount = (status: number, method: string) => void;

/**
 * Malformed HTTP (bad headers, bad framing, too much of either) never reaches a route; it
 * still gets the documented JSON error shape. Node reports a request line or headers past
 * its 16 KiB limit as one overflow: a first line that long is an over-long URL.
 */
function clientErrorHandler(
  error: NodeJS.ErrnoException,
  socket: Socket,
  cors: RefusalCors,
  counted?: ParserRefusalCount,
): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Bytes after a whole request (pipelined, or more than its Content-Length) can fail to
  // parse while that request is still being handled. Its answer goes first: written
  // straight to the socket, this error would jump the queue, end the connection, and the
  // client would read "malformed" for a request that succeeded. (When the request in
  // flight is the one whose body is broken, its own answer is this error.)
  const inFlight = exchangesInFlight.get(socket);
  if (inFlight?.req.complete && !inFlight.writableFinished) {
    inFlight.once('close', () => clientErrorHandler(error, socket, cors, counted));
    return;
  }
  const received = receivedBytes(error) ?? Buffer.alloc(0);
  const corsLines = rawCors(received, cors);
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    const firstLineEnd = received.indexOf('\r\n');
    const longUrl = firstLineEnd < 0 || firstLineEnd > MAX_URL_BYTES;
    counted?.(longUrl ? 414 : 431, methodOf(received));
    socket.end(
      longUrl
        ? rawError('414 URI Too Long', 'uri_too_long', ERROR_MESSAGES.uri_too_long, corsLines)
        : rawError(
            '431 Request Header Fields Too Large',
            'headers_too_large',
            ERROR_MESSAGES.headers_too_large,
            corsLines,
          ),
    );
    return;
  }
  counted?.(400, methodOf(received));
  socket.end(
    rawError('400 Bad Request', 'invalid_request', 'The HTTP request is malformed.', corsLines),
  );
}

/** The method the received bytes begin with (a metrics label maps any unknown one to `other`). */
function methodOf(received: Buffer): string {
  const space = received.indexOf(' ');
  return received.toString('latin1', 0, space > 0 && space <= 16 ? space : 0);
}

type RequestListener = (this: Server, request: IncomingMessage, response: ServerResponse) => void;

/**
 * The server's `request` listeners as one function, taken off the server: the bookkeeping
 * above runs in the same listener as the handler, not in a second one. Node's emitter calls
 * a lone listener directly, but copies the list of two or more on every request first.
 */
function requestHandlerOf(server: Server): RequestListener {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  const [only] = listeners;
  if (only && listeners.length === 1) return only;
  return function handleAll(request, response) {
    for (const listener of listeners) listener.call(this, request, response);
  };
}

/**
 * What the HTTP server needs beyond Fastify's options so that every answer is ours and in
 * order: each connection's response in flight is tracked (see `clientErrorHandler`), and two
 * requests Node would otherwise answer itself, in no shape of ours, are handled: an `Expect`
 * other than `100-continue` (Node: `417`, empty body), which RFC 9110 lets a server ignore,
 * so the request is handled as if the header were absent; and `CONNECT` (Node: the
 * connection dropped unanswered), which no route serves. An early answer (sent before the
 * request's body was read) reaches the client on a closing connection too
 * (`lingering-close.ts`). Call it once the server has its handler: the bookkeeping is put
 * before the handler, in its listener (`requestHandlerOf`).
 */
export function answerInOurShape(
  server: Server,
  log: LingerLog,
  config: Pick<ServiceConfig, 'maxConnectionsPerClient' | 'trustProxy'>,
): void {
  if (config.maxConnectionsPerClient > 0 && config.trustProxy === undefined) {
    capConnectionsPerClient(server, config.maxConnectionsPerClient);
  }
  const lingerAfter = lingerAfterEarlyAnswers((socket) => exchangesInFlight.get(socket)?.req, log);
  const handle = requestHandlerOf(server);
  server.on(
    'request',
    function answerTracked(this: Server, request: IncomingMessage, response: ServerResponse) {
      exchangesInFlight.set(request.socket, response);
      lingerAfter(request, response);
      handle.call(this, request, response);
    },
  );
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  server.on('connect', (_request, socket: Socket) => {
    socket.end(rawError('404 Not Found', 'not_found', 'No route CONNECT.'));
  });
}
