import type { responses } from './document.js';

/** An answer of `components.responses`, by its name. */
type ResponseName = keyof typeof responses;

/**
 * The error answer each status has on a route that names no other: a route whose `400` or
 * `403` says more (`BadSign`, `SecretKeyRequired`…) names it, as `{ 403: 'SecretKeyRequired' }`.
 * No status `403` or `409` is here: what they mean differs from route to route.
 */
const STANDARD = {
  400: 'InvalidRequest',
  401: 'Unauthorized',
  404: 'NotFound',
  408: 'RequestTimeout',
  413: 'ContentTooLarge',
  414: 'UriTooLong',
  415: 'UnsupportedMediaType',
  422: 'FileRefused',
  429: 'TooManyRequests',
  431: 'HeadersTooLarge',
  500: 'InternalError',
  503: 'Unavailable',
  507: 'InsufficientStorage',
} as const satisfies Record<number, ResponseName>;

type StandardStatus = keyof typeof STANDARD;

/** Error answers a route names itself, by status. */
type NamedAnswers = { readonly [status: number]: ResponseName };

type ErrorResponses = Record<`${number}`, { readonly $ref: string }>;

/**
 * A route's error answers as its `responses` spell them (`'403': { $ref:
 * '#/components/responses/SecretKeyRequired' }`): `errors(400, 401, { 403:
 * 'SecretKeyRequired' }, 414, 429)`. Spread beside its success answers.
 */
export function errors(...answers: readonly (StandardStatus | NamedAnswers)[]): ErrorResponses {
  const out: ErrorResponses = {};
  for (const answer of answers) {
    const named: NamedAnswers =
      typeof answer === 'number' ? { [answer]: STANDARD[answer] } : answer;
    for (const [status, name] of Object.entries(named)) {
      const key = status as `${number}`;
      if (key in out) throw new Error(`error answer ${status} given twice`);
      out[key] = { $ref: `#/components/responses/${name}` };
    }
  }
  return out;
}
