import type { Socket } from 'node:net';
import { type FastifyServerOptions, LogController } from 'fastify';
import type { ServiceConfig } from './config.js';

/**
 * Timeouts for large uploads: Node's 5-minute `requestTimeout` would cut a slow 100 MiB
 * upload, so it is off; instead a connection on which no byte moves for the idle timeout
 * is cut. Headers must still arrive promptly.
 */
export function serverOptions(config: ServiceConfig): FastifyServerOptions {
  return {
    requestTimeout: 0,
    connectionTimeout: config.idleTimeoutSeconds * 1000,
    keepAliveTimeout: 5_000,
    // Per-request lines would drown what matters; errors are logged where they happen.
    logController: new LogController({ disableRequestLogging: true }),
    forceCloseConnections: true,
    return503OnClosing: true,
    routerOptions: { maxParamLength: 500 },
    // `request.ip` (rate limits) reads X-Forwarded-For only as far as the operator trusts it.
    ...(config.trustProxy === undefined ? {} : { trustProxy: trustProxy(config.trustProxy) }),
    clientErrorHandler,
  };
}

/** A hop count trusts that many proxies in front of us (the hops nearest to this server). */
function trustProxy(
  setting: number | string[],
): string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

const BAD_REQUEST_BODY = JSON.stringify({
  error: { code: 'invalid_request', message: 'The HTTP request is malformed.' },
});

/**
 * Malformed HTTP (bad headers, bad framing) never reaches a route; it still gets the
 * documented JSON error shape.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(BAD_REQUEST_BODY)}\r\nConnection: close\r\n\r\n${BAD_REQUEST_BODY}`,
  );
}
