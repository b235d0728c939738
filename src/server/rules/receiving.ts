import type { FastifyBaseLogger } from 'fastify';
import { ServiceError } from '../ground/errors.js';
import type { CoreContext } from './context.js';

/**
 * What the two uploads whose bytes come in the request itself (one file, `POST /v1/upload`;
 * a batch of small ones, `POST /v1/upload/batch`) share while their rows are `receiving`.
 */

/** Room for a multipart body's boundaries, part headers and fields around the files' bytes. */
export const MULTIPART_OVERHEAD = 256 * 1024;

/**
 * How long a receiving row stays claimed without renewal. It is renewed every half idle
 * timeout while the request lives (a stalled body is cut after the idle timeout), so three
 * idle timeouts without renewal mean the receiving instance is gone.
 */
export function receivingExpiry(ctx: CoreContext): number {
  return ctx.now() + 3 * ctx.config.idleTimeoutSeconds * 1000;
}

/**
 * Renews the leases of the rows `ids` names (asked each time: a batch adds its rows as it
 * reads their entries) while their bytes arrive, so that no other instance's sweep takes
 * them for rows whose receiver died. Answers what stops it.
 */
export function renewWhileReceiving(
  ctx: CoreContext,
  log: FastifyBaseLogger,
  ids: () => Iterable<string>,
): () => void {
  const renewal = setInterval(
    () => {
      for (const id of ids()) {
        ctx.db.extendExpiry(id, receivingExpiry(ctx)).catch((error: unknown) => {
          log.warn({ err: error, id }, 'could not renew the lease of a receiving upload');
        });
      }
    },
    Math.max(500, (ctx.config.idleTimeoutSeconds * 1000) / 2),
  );
  renewal.unref();
  return () => clearInterval(renewal);
}

/** Parser and limit errors of a multipart body are the client's, never a 500. */
export function multipartError(error: unknown): unknown {
  const status = (error as { statusCode?: number }).statusCode;
  const message = error instanceof Error ? error.message : String(error);
  const isParserError =
    (status !== undefined && status >= 400 && status < 500) ||
    /multipart|boundary|unexpected end|malformed|part/i.test(message);
  if (!isParserError) return error;
  return new ServiceError('invalid_request', `The multipart body could not be read: ${message}`);
}
