import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import type { Project } from '../db/metadata-store.js';
import { fail } from '../http/errors.js';
import { originAllowed } from '../origins.js';
import { constantTimeEqual, hashKey, type KeyKind, keyKindOf } from '../secrets.js';

export interface Caller {
  project: Project;
  keyKind: KeyKind;
  keyId: string;
}

/**
 * `Bearer`, one space, the key: exactly what every client of ours sends (they trim the key).
 * Node has already dropped whitespace around the whole value; any other spacing is refused,
 * so that a key is read one way only.
 */
const BEARER = /^Bearer (\S+)$/i;

/**
 * Resolves the caller from `Authorization: Bearer <key>`. A publishable key must come from
 * an allowlisted `Origin` and is rate-limited per key and client IP; `secretOnly`
 * operations refuse it after those checks.
 */
export async function authenticate(
  ctx: ServiceContext,
  request: FastifyRequest,
  options: { secretOnly?: boolean } = {},
): Promise<Caller> {
  const header = request.headers.authorization;
  if (header === undefined) fail('missing_auth');
  const match = BEARER.exec(header);
  if (!match) {
    fail('invalid_key', 'The Authorization header must be "Bearer <API key>".');
  }
  const key = match[1] as string;
  const kind = keyKindOf(key);
  const hash = hashKey(key);
  const found = kind ? await ctx.db.findKeyByHash(hash) : null;
  if (!found || !constantTimeEqual(found.key.hash, hash) || found.key.kind !== kind) {
    fail('invalid_key');
  }
  if (found.key.kind === 'publishable') {
    checkOrigin(request.headers.origin, found.project);
    const wait = await ctx.rateLimiter.take(`${found.key.id} ${request.ip}`);
    if (wait > 0) {
      fail('rate_limited', `Too many requests with this key. Retry in ${wait} s.`, {
        headers: { 'Retry-After': String(wait) },
        extra: { retryAfter: wait },
      });
    }
    if (options.secretOnly) fail('secret_key_required');
  }
  return { project: found.project, keyKind: found.key.kind, keyId: found.key.id };
}

function checkOrigin(origin: string | undefined, project: Project): void {
  if (origin === undefined || origin === 'null') {
    fail(
      'origin_not_allowed',
      'A publishable key only works from a web page whose origin is on the key’s allowlist; this request has no usable Origin header.',
      { extra: { origin: origin ?? null } },
    );
  }
  if (!originAllowed(project.allowedOrigins, origin)) {
    fail(
      'origin_not_allowed',
      `The origin ${origin} is not allowed to use this publishable key. Allow it with FILEHOST_ALLOWED_ORIGINS=${origin} (the default project; comma-separated, it replaces the list) or \`npm run admin -- projects set ${project.id} --origins ${origin}\`.`,
      { extra: { origin } },
    );
  }
}
