import type { ApiErrorCode } from '../api/errors.js';
import type { ImportErrorCode } from '../api/types.js';

/**
 * Codes the client adds for failures that never reached an answer from the service, and
 * the codes of a failed import (`importFromUrl`). `token_provider_failed`: the
 * `tokenProvider` threw or answered no token (its error is the `cause`).
 */
export type ClientErrorCode =
  | ApiErrorCode
  | ImportErrorCode
  | 'network_error'
  | 'unexpected_response'
  | 'token_provider_failed';

/**
 * Every failure of a client call: the service's documented error (`status`, `code`,
 * `message`, any extra fields) or a network failure (`status` 0, `network_error`).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ClientErrorCode;
  /** Seconds to wait before retrying, from `Retry-After` (429), else null. */
  readonly retryAfter: number | null;
  /**
   * Extra fields of the error body, e.g. `limit` of `too_large` or `origin` of
   * `origin_not_allowed`, and `requestId` (see `requestId`).
   */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    status: number,
    code: ClientErrorCode,
    message: string,
    options: {
      retryAfter?: number | null;
      details?: Record<string, unknown>;
      cause?: unknown;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = options.retryAfter ?? null;
    this.details = options.details ?? {};
  }

  /**
   * The service's name for the request (`error.requestId`: every error body of the service
   * carries it, equal to the answer's `X-Request-Id`), null when no answer of the service
   * came: quoted in a report, it finds the request's log lines. Kept in `details`, where the
   * elements' failures carry it to the page.
   */
  get requestId(): string | null {
    const id = this.details.requestId;
    return typeof id === 'string' ? id : null;
  }

  /**
   * Builds the error from a non-2xx answer, reading the documented JSON body when there is
   * one. A code this client does not know (a newer service's) is kept as the service said
   * it: its status still says what kind of failure it is.
   */
  static fromBody(status: number, bodyText: string, retryAfterHeader: string | null): ApiError {
    const retryAfter = parseRetryAfter(retryAfterHeader);
    let parsed: unknown;
    try {
      parsed = JSON.parse(bodyText);
    } catch {
      parsed = undefined;
    }
    const error = (parsed as { error?: Record<string, unknown> } | undefined)?.error;
    if (error && typeof error.code === 'string' && typeof error.message === 'string') {
      const { code, message, ...details } = error;
      return new ApiError(status, code as ApiErrorCode, message, { retryAfter, details });
    }
    return new ApiError(
      status,
      'unexpected_response',
      `The service answered ${status} without a readable error.`,
      { retryAfter },
    );
  }

  static network(cause: unknown): ApiError {
    return new ApiError(0, 'network_error', 'The service could not be reached (network error).', {
      cause,
    });
  }
}

function parseRetryAfter(value: string | null): number | null {
  if (value === null) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
