import { routes } from '../../src/api/routes.js';
import type { SignedPart } from '../../src/api/types.js';

/** How a test calls the API: a key (secret by default; null: none), an Origin, headers. */
export interface CallInit {
  key?: string | null;
  origin?: string;
  headers?: Record<string, string>;
}

type Api = (
  path: string,
  init?: CallInit & { method?: string; body?: BodyInit },
) => Promise<Response>;

/**
 * The upload protocol's calls as every server test makes them, once: the paths come from
 * the client's own route table, JSON bodies are encoded here (a string is sent as it is,
 * so a test can send malformed JSON on purpose), and the answer is the raw `Response`, for
 * the test to check with `json` or `expectError`.
 */
export interface Protocol {
  /** `POST /v1/uploads/sign` with one file (`{ name, size, … }`) or a batch (`{ files }`). */
  sign(body: unknown, init?: CallInit): Promise<Response>;
  /** `POST /v1/uploads/sign` with `{ files }`. */
  signMany(files: unknown, init?: CallInit): Promise<Response>;
  /** `GET /v1/uploads/:id`. */
  state(id: string, init?: CallInit): Promise<Response>;
  /** `POST /v1/uploads/:id/complete`, with a body (`{ parts }`) or none. */
  complete(id: string, body?: unknown, init?: CallInit): Promise<Response>;
  /** `POST /v1/uploads/complete` with `{ uploads }` (a string: the whole body, as it is). */
  completeMany(uploads: unknown, init?: CallInit): Promise<Response>;
  /** A part's bytes to its signed URL, with its signed headers (or others, to test them). */
  putPart(
    part: SignedPart,
    bytes: Uint8Array<ArrayBuffer>,
    headers?: Record<string, string>,
  ): Promise<Response>;
}

export function protocol(api: Api): Protocol {
  const post = (path: string, body: unknown, init: CallInit = {}) =>
    api(path, {
      ...init,
      method: 'POST',
      ...(body === undefined
        ? {}
        : {
            headers: { 'Content-Type': 'application/json', ...init.headers },
            body: typeof body === 'string' ? body : JSON.stringify(body),
          }),
    });
  return {
    sign: (body, init) => post(routes.sign(), body, init),
    signMany: (files, init) => post(routes.sign(), { files }, init),
    state: (id, init) => api(routes.uploadState(id), init),
    complete: (id, body, init) => post(routes.complete(id), body, init),
    completeMany: (uploads, init) =>
      post(routes.completeMany(), typeof uploads === 'string' ? uploads : { uploads }, init),
    putPart: (part, bytes, headers = part.headers) =>
      fetch(part.url, { method: part.method, headers, body: bytes }),
  };
}
