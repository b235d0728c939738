import type { FastifyRequest } from 'fastify';
import { UPLOAD_TOKEN_PREFIX } from '../../api/routes.js';
import type { Project, UploadTokenRow } from '../db/metadata-store.js';
import { fail } from '../ground/errors.js';
import { originAllowed } from '../ground/origins.js';
import { constantTimeEqual, hashKey, type KeyKind, keyKindOf } from '../ground/secrets.js';
import { addressGroup } from '../rate-limit/address-group.js';
import type { CoreContext } from './context.js';

/**
 * Who calls: a project's secret or publishable key, or an upload token its backend minted
 * (`token`, with `keyKind: 'token'`).
 */
export interface Caller {
  project: Project;
  keyKind: KeyKind | 'token';
  keyId: string;
  /** The upload token the call came with; null for a key. */
  token: UploadTokenRow | null;
}

/**
 * What an endpoint is, for who may call it. `secretOnly`: the backend's own endpoints.
 * `upload`: an upload call, the only kind an upload token may make: `start` (sign, the
 * one-request upload), which a token past its expiry may not, or `continue` (the calls on a
 * pending upload), which it still may until the upload itself expires.
 */
export interface Access {
  secretOnly?: boolean;
  upload?: 'start' | 'continue';
}

/**
 * `Bearer`, one space, the key: exactly what every client of ours sends (they trim the key).
 * Node has already dropped whitespace around the whole value; any other spacing is refused,
 * so that a key is read one way only.
 */
const BEARER = /^Bearer (\S+)$/i;

/**
 * Resolves the caller from `Authorization: Bearer <key or upload token>`. A publishable key
 * must come from an allowlisted `Origin` and is rate-limited per key and client address
 * group (`addressGroup`: an IPv6 client by its /64);
 * `secretOnly` operations refuse it after those checks, and upload calls refuse it alone
 * when its project requires upload tokens. An upload token: see `authenticateToken`.
 */
export async function authenticate(
  ctx: CoreContext,
  request: FastifyRequest,
  access: Access = {},
): Promise<Caller> {
  const header = request.headers.authorization;
  if (header === undefined) fail('missing_auth');
  const match = BEARER.exec(header);
  if (!match) {
    fail('invalid_key', 'The Authorization header must be "Bearer <API key>".');
  }
  const key = match[1] as string;
  if (key.startsWith(UPLOAD_TOKEN_PREFIX)) return authenticateToken(ctx, request, key, access);
  const kind = keyKindOf(key);
  const hash = hashKey(key);
  const found = kind ? await ctx.db.findKeyByHash(hash) : null;
  if (!found || !constantTimeEqual(found.key.hash, hash) || found.key.kind !== kind) {
    fail('invalid_key');
  }
  if (found.key.kind === 'publishable') {
    checkOrigin(request.headers.origin, found.project, 'publishable key');
    await takeRate(ctx, `${found.key.id} ${addressGroup(request.ip)}`);
    if (access.secretOnly) fail('secret_key_required');
    if (access.upload && found.project.requireUploadToken) fail('upload_token_required');
  }
  return { project: found.project, keyKind: found.key.kind, keyId: found.key.id, token: null };
}

/**
 * An upload token (decisions.md, "Who may upload"): unknown is `401 invalid_key`; on an
 * endpoint that is not an upload call `403 token_scope`; past its expiry `401
 * token_expired`, except on the calls that continue a pending upload. `Origin` is checked
 * when present (native apps and servers send none). Rate-limited per token.
 */
async function authenticateToken(
  ctx: CoreContext,
  request: FastifyRequest,
  value: string,
  access: Access,
): Promise<Caller> {
  const hash = hashKey(value);
  const found = await ctx.db.findUploadTokenByHash(hash);
  if (!found || !constantTimeEqual(found.token.hash, hash)) {
    fail('invalid_key', 'The upload token is not recognized.');
  }
  if (!access.upload) fail('token_scope');
  if (access.upload === 'start' && found.token.expiresAt <= ctx.now()) {
    fail('token_expired', undefined, { extra: { expiresAt: found.token.expiresAt } });
  }
  if (request.headers.origin !== undefined) {
    checkOrigin(request.headers.origin, found.project, 'upload token');
  }
  await takeRate(ctx, `upt ${found.token.id}`);
  return { project: found.project, keyKind: 'token', keyId: found.token.id, token: found.token };
}

async function takeRate(ctx: CoreContext, key: string): Promise<void> {
  const wait = await ctx.rateLimiter.take(key);
  if (wait > 0) {
    fail('rate_limited', `Too many requests with this key. Retry in ${wait} s.`, {
      headers: { 'Retry-After': String(wait) },
      extra: { retryAfter: wait },
    });
  }
}

/** The credentials a page carries, with the article each takes ("An upload token"). */
const PAGE_CREDENTIALS = {
  'publishable key': 'A publishable key',
  'upload token': 'An upload token',
} as const;

function checkOrigin(
  origin: string | undefined,
  project: Project,
  what: keyof typeof PAGE_CREDENTIALS,
): void {
  if (origin === undefined || origin === 'null') {
    fail(
      'origin_not_allowed',
      `${PAGE_CREDENTIALS[what]} only works from a web page whose origin is on the project’s allowlist; this request has no usable Origin header.`,
      { extra: { origin: origin ?? null } },
    );
  }
  if (!originAllowed(project.allowedOrigins, origin)) {
    fail(
      'origin_not_allowed',
      `The origin ${origin} is not allowed to use this ${what}. Allow it with FILEHOST_ALLOWED_ORIGINS=${origin} (the default project; comma-separated, it replaces the list) or \`npm run admin -- projects set ${project.id} --origins ${origin}\`.`,
      { extra: { origin } },
    );
  }
}
