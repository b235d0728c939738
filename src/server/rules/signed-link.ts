import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed CDN links (decisions.md, "Private files and signed links"):
 * `{cdn_url}/<id>/<name>?<parameters>&exp=<Unix s>&sig=<base64url HMAC-SHA256>`.
 *
 * The signature covers the id, every parameter and `exp`, in a canonical form: parameters
 * sorted by name, each value percent-encoded, so a link whose query was reordered (by a
 * proxy, a framework) still verifies, and no value can be made to read as another
 * parameter. The name segment is decorative (the CDN routes on the id alone) and is not
 * signed.
 *
 * Only the parameters the CDN knows may appear beside `exp` and `sig`: a signed link with
 * any other parameter, or with one of them repeated, is refused as `invalid_signature`.
 * The answer to a link then depends only on what was signed; a verifier that ignored
 * extra parameters would let anyone add ones a later version acts on.
 *
 * Pure: no clock, no store; the caller passes the time and the key.
 */

/**
 * The parameters a link may carry, signed: the image parameters of the CDN's variants
 * (`w`, `h`, `fit`, `format`, `q`) and `download` (`1`: served as an attachment).
 */
export const LINK_PARAMETERS = ['download', 'fit', 'format', 'h', 'q', 'w'] as const;
export type LinkParameter = (typeof LINK_PARAMETERS)[number];
export type LinkParameters = Partial<Record<LinkParameter, string>>;

const KNOWN = new Set<string>(LINK_PARAMETERS);

/** Names every signed message, so a MAC made for links can never pass for another one. */
const MESSAGE_PREFIX = 'filehost-cdn-link-v1';

/**
 * The key of CDN links, derived from the service's signing secret (the one every instance
 * shares): the same secret also keys upload URLs, and one key is never used for two
 * purposes, so a MAC of one kind can never be replayed as the other.
 */
export function linkKey(signingSecret: Buffer): Buffer {
  return createHmac('sha256', signingSecret).update('cdn-link').digest();
}

/** The exact bytes the signature is made over. */
export function canonicalMessage(id: string, parameters: LinkParameters, exp: number): string {
  const pairs = Object.entries(parameters)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`);
  return `${MESSAGE_PREFIX}\n${id}\n${pairs.join('&')}\n${exp}`;
}

export function linkSignature(
  key: Buffer,
  id: string,
  parameters: LinkParameters,
  exp: number,
): string {
  return createHmac('sha256', key)
    .update(canonicalMessage(id, parameters, exp))
    .digest('base64url');
}

/** The query of a signed link (without `?`): the parameters sorted, then `exp`, then `sig`. */
export function signedLinkQuery(
  key: Buffer,
  id: string,
  parameters: LinkParameters,
  exp: number,
): string {
  const query = new URLSearchParams();
  for (const name of LINK_PARAMETERS) {
    const value = parameters[name];
    if (value !== undefined) query.append(name, value);
  }
  query.append('exp', String(exp));
  query.append('sig', linkSignature(key, id, parameters, exp));
  return query.toString();
}

/**
 * What a request's query says about its access:
 * - `unsigned`: no `sig` (a plain URL; only a public file answers it),
 * - `signed`: a valid signature, not expired: the parameters it signed, and `exp`,
 * - `invalid`: a `sig` that does not match, or a signed query with anything else wrong
 *   (a missing or malformed `exp`, an unknown or repeated parameter),
 * - `expired`: a valid signature whose `exp` has passed.
 */
export type LinkAccess =
  | { kind: 'unsigned' }
  | { kind: 'signed'; parameters: LinkParameters; exp: number }
  | { kind: 'invalid' }
  | { kind: 'expired'; exp: number };

/**
 * `exp`: Unix seconds in their one spelling: digits only, no leading zero (no sign,
 * exponent or spaces), at most 12 of them; so no other text can stand for a signed `exp`.
 */
const EXP_PATTERN = /^(?:0|[1-9][0-9]{0,11})$/;
/** A base64url SHA-256 MAC: 32 bytes, 43 characters, no padding. */
const SIG_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/**
 * Checks the query of a request for `id` (`search`: the part after `?`, or empty, or that
 * part already parsed) at `nowMs`. The signature is checked before the expiry, so an
 * altered link is always `invalid`, never `expired`; an expired one says so only once it
 * proved itself ours.
 */
export function checkLink(
  key: Buffer,
  id: string,
  search: string | URLSearchParams,
  nowMs: number,
): LinkAccess {
  const query = typeof search === 'string' ? new URLSearchParams(search) : search;
  if (!query.has('sig')) return { kind: 'unsigned' };
  const parameters: LinkParameters = {};
  let exp: string | undefined;
  let sig: string | undefined;
  const seen = new Set<string>();
  for (const [name, value] of query) {
    if (seen.has(name)) return { kind: 'invalid' };
    seen.add(name);
    if (name === 'exp') exp = value;
    else if (name === 'sig') sig = value;
    else if (KNOWN.has(name)) parameters[name as LinkParameter] = value;
    else return { kind: 'invalid' };
  }
  if (exp === undefined || sig === undefined || !EXP_PATTERN.test(exp) || !SIG_PATTERN.test(sig)) {
    return { kind: 'invalid' };
  }
  // Compared as text, not as decoded bytes: the last of 43 base64url characters carries 2
  // bits that decoding drops, and a changed character must never still verify.
  const expected = Buffer.from(linkSignature(key, id, parameters, Number(exp)));
  if (!timingSafeEqual(Buffer.from(sig), expected)) return { kind: 'invalid' };
  const expSeconds = Number(exp);
  if (nowMs >= expSeconds * 1000) return { kind: 'expired', exp: expSeconds };
  return { kind: 'signed', parameters, exp: expSeconds };
}

/** `Cache-Control` of an answer to a signed link: for the one who holds it, until it expires. */
export function signedCacheControl(exp: number, nowMs: number): string {
  return `private, max-age=${Math.max(0, Math.floor((exp * 1000 - nowMs) / 1000))}`;
}
