import type { ApiError } from '../../client/api-error.js';
import { formatBytes, formatCount, pluralForm } from './format.js';
import { SAME_WORDS } from './same-words.js';

import type { FailureContext, FailureText } from './translation.js';

export type { FailureContext, FailureText };

/** The `errors` of an element's strings: a text per code it words, and one for the rest. */
export type FailureTexts = { readonly [code: string]: FailureText | undefined } & {
  readonly unexpected: FailureText;
};

/** A failed service call, as both elements report it in their events and show it. */
export interface ServiceFailure {
  code: string;
  /** HTTP status of the service's answer; 0 when it never answered. */
  status: number;
  /** The sentence shown to the user. */
  message: string;
  /** The service's own message, when there was one. */
  serviceMessage: string | null;
  /** Seconds the service asked to wait (rate_limited). */
  retryAfter: number | null;
  /**
   * Extra fields of the service's error; `requestId` names the failed request (shown after
   * the code, so a user's report quoting it finds the service's log lines).
   */
  details: Readonly<Record<string, unknown>>;
}

let serviceWords: Promise<void> | null = null;

/**
 * Fetches the English words of the service's answers (`en-service.ts`) once per page, for
 * an element that is to word one. It always settles: a fetch that failed is forgotten (and
 * made again with the next answer), and the answer is worded as its code this time.
 */
export function loadServiceWords(): Promise<void> {
  serviceWords ??= import('./en-service.js').then(
    (words) => words.fillServiceWords(),
    () => {
      serviceWords = null;
    },
  );
  return serviceWords;
}

/** A message context with only what is known filled in. */
export function failureContext(known: Partial<FailureContext>): FailureContext {
  return {
    origin: '',
    limit: '',
    seconds: '',
    accept: '',
    max: '',
    form: 'other',
    code: '',
    message: '',
    ...known,
  };
}

/**
 * Words a failed call in the element's strings: the text named by its code (or by
 * `aliases[code]`, where an element names a code after what it means to its user, or by
 * `SAME_WORDS`), else `unexpected`, which shows the code and the service's sentence.
 */
export function describeApiError(
  error: ApiError,
  errors: FailureTexts,
  options: { locale: string; origin: string; aliases?: Readonly<Record<string, string>> },
): ServiceFailure {
  const { details } = error;
  const seconds = error.retryAfter ?? 60;
  const context = failureContext({
    origin: typeof details.origin === 'string' ? details.origin : options.origin,
    limit: typeof details.limit === 'number' ? formatBytes(details.limit, options.locale) : '',
    seconds: formatCount(seconds, options.locale),
    form: pluralForm(seconds, options.locale),
    // The project's accepted types, when the service refused a file's (unsupported_type).
    accept: Array.isArray(details.allowed) ? details.allowed.join(', ') : '',
    code: error.code,
    message: error.message,
  });
  const { code } = error;
  const text = errors[options.aliases?.[code] ?? SAME_WORDS[code] ?? code] ?? errors.unexpected;
  return {
    code,
    status: error.status,
    message: text(context),
    serviceMessage: code === 'network_error' ? null : error.message,
    retryAfter: error.retryAfter,
    details,
  };
}
