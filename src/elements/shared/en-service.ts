import { en } from './en.js';
import { failureDetails } from './failure-details.js';
import { SAME_WORDS } from './same-words.js';
import type { FailureTexts, ServiceAnswerFailure } from './translation.js';

/**
 * The English words of the service's answers to a page's setup (an origin or key it does
 * not take, a refused request, nothing at the address, a problem or busy service, too many
 * requests) and of its scanner's refusals (an upload's or an import's): each arrives only with an answer of the service, which is reachable then, so
 * they are fetched with the first such answer (`loadServiceWords` in `failure-text.ts`,
 * which `<file-list>`, the upload engine and the Link source call before they word one)
 * rather than by every page's first load. What a page meets without an answer (a lost connection, a missing file, no key or
 * address) stays in `en.ts`. Other languages ship whole.
 */
const errors: Pick<FailureTexts, ServiceAnswerFailure> = {
  origin_not_allowed: ({ origin }) =>
    `This page (${origin}) may not use this key. The key's list of allowed origins must include ${origin}.`,
  invalid_key: () => 'The key was not recognized. Check the api-key setting.',
  rate_limited: ({ seconds, form }) =>
    `Too many requests in a short time. Try again in ${seconds} ${form === 'one' ? 'second' : 'seconds'}.`,
  refused: ({ code }) =>
    `The file service refused this request (${code}). The page needs fixing: please tell the site's owner.`,
  not_found: () => 'Nothing was found at this address. Check the endpoint setting.',
  internal_error: () => 'The file service ran into a problem of its own. Try again in a moment.',
  unavailable: ({ seconds, form }) =>
    `The file service is busy right now. Try again in ${seconds} ${form === 'one' ? 'second' : 'seconds'}.`,
  // What the file holds refused it (the scanner, the location stripper): an upload's and an
  // import's alike.
  infected: () => 'A virus scan found malware in this file. Nothing was kept.',
  unscannable: () =>
    'The virus scan could not finish checking this file (perhaps an archive that unpacks to too much). Nothing was kept.',
  metadata_unreadable: () =>
    "This photo's location could not be removed safely, so nothing was kept. Save a copy without location and try again.",
};

/**
 * The service's codes that share the words of another, in every language: each is an
 * answer of the service, so it arrives with these (see `SAME_WORDS`).
 */
const sameWords: Readonly<Record<string, string>> = {
  invalid_request: 'refused',
  missing_file: 'refused',
  checksum_missing: 'refused',
  uri_too_long: 'refused',
  headers_too_large: 'refused',
  secret_key_required: 'refused',
  token_scope: 'refused',
  size_mismatch: 'damaged',
  checksum_mismatch: 'damaged',
  upload_incomplete: 'damaged',
  invalid_signature: 'link_expired',
  url_expired: 'link_expired',
  upload_not_pending: 'upload_conflict',
  unsupported_type: 'type_not_allowed',
  request_timeout: 'network_error',
};

/**
 * Adds them to the English translation, which codes share words to `SAME_WORDS`, and the
 * request's id to a failure's details (`failureDetails`; in every language: it is no word).
 * A call, not an import's side effect: see `fillEnglish`.
 */
export function fillServiceWords(): void {
  Object.assign(en.errors, errors);
  Object.assign(SAME_WORDS, sameWords);
  failureDetails.of = ({ code, details }) =>
    typeof details.requestId === 'string' ? `${code} · ${details.requestId}` : code;
}
