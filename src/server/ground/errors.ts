import { API_ERROR_STATUS, type ApiErrorBody, type ApiErrorCode } from '../../api/errors.js';
import { ERROR_MESSAGES } from './error-messages.js';

/**
 * The one error type handlers throw. The error mapper in `app.ts` turns it into the
 * documented JSON body; anything else thrown becomes `internal_error`.
 */
export class ServiceError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly extra: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    code: ApiErrorCode,
    message?: string,
    options: { extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ) {
    super(message ?? ERROR_MESSAGES[code]);
    this.name = 'ServiceError';
    this.code = code;
    this.status = API_ERROR_STATUS[code];
    this.extra = options.extra ?? {};
    this.headers = options.headers ?? {};
  }

  /** The documented body; `requestId` names the request it answers (`request-id.ts`). */
  toBody(requestId?: string): ApiErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...this.extra,
        ...(requestId === undefined ? {} : { requestId }),
      },
    };
  }
}

export function fail(
  code: ApiErrorCode,
  message?: string,
  options?: ConstructorParameters<typeof ServiceError>[2],
): never {
  throw new ServiceError(code, message, options);
}

/** The error of one entry of a batch, with `index` saying which (the first bad one). */
export function atIndex(error: unknown, index: number, field: string): unknown {
  if (!(error instanceof ServiceError)) return error;
  return new ServiceError(error.code, `${field}[${index}]: ${error.message}`, {
    extra: { ...error.extra, index },
    headers: error.headers,
  });
}
