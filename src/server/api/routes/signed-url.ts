import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ImageTransform, SignedUrlResponse } from '../../../api/types.js';
import { type LinkParameters, signedLinkQuery } from '../../cdn/signed-link.js';
import type { ServiceContext } from '../../context.js';
import { isPlainObject, JSON_LIMIT, jsonDeadline, readJson } from '../../http/body.js';
import { fail } from '../../http/errors.js';
import { authenticate } from '../auth.js';
import { fileUrl } from '../names.js';

/** A link's lifetime, seconds: from 1 s to 7 days, 1 hour when not asked. */
export const LINK_TTL = { min: 1, max: 7 * 24 * 3600, default: 3600 } as const;

/** The image parameters' ranges, as the CDN's variants take them (decisions.md). */
const FITS: readonly string[] = ['cover', 'contain', 'inside', 'fill'];
const FORMATS: readonly string[] = ['auto', 'webp', 'avif', 'jpeg', 'png'];
const TRANSFORM_KEYS = new Set(['w', 'h', 'fit', 'format', 'q']);

/**
 * `POST /v1/files/:id/signed-url` (secret key): a CDN link to one of the project's files
 * that works until it expires, signed over the id, its parameters and its expiry
 * (`cdn/signed-link.ts`). The only way a private file is served; a public file answers one
 * too, so a backend can sign without asking which kind a file is. A pending file may be
 * signed for: its link answers 404 until the file is ready, as its URL would.
 */
export async function signedUrlHandler(
  ctx: ServiceContext,
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { secretOnly: true });
  const body = await readJson(request, { limit: JSON_LIMIT, deadlineMs: jsonDeadline(ctx) });
  const asked = parseSignedUrlRequest(body);
  const row = await ctx.db.getVisibleFile(caller.project.id, request.params.id);
  if (!row) fail('not_found', 'No file with this id.');
  if (asked.transform && !row.mime.startsWith('image/')) {
    fail('invalid_request', 'transform applies to images only; this file is not one.');
  }
  const parameters: LinkParameters = {
    ...asked.transform,
    ...(asked.download ? { download: '1' } : {}),
  };
  // Whole seconds, rounded up: a link works at least as long as asked.
  const exp = Math.ceil(ctx.now() / 1000) + asked.expiresIn;
  const answer: SignedUrlResponse = {
    url: `${fileUrl(ctx.urls.cdn, row.id, row.name)}?${signedLinkQuery(ctx.linkKey, row.id, parameters, exp)}`,
    expiresAt: exp * 1000,
  };
  reply.header('Cache-Control', 'no-store').send(answer);
}

interface AskedLink {
  expiresIn: number;
  download: boolean;
  /** The image parameters as the link carries them (text), or null for none. */
  transform: Partial<Record<keyof ImageTransform, string>> | null;
}

/** The request's body (absent: every default), checked: `400 invalid_request` otherwise. */
export function parseSignedUrlRequest(body: unknown): AskedLink {
  if (body === undefined) return { expiresIn: LINK_TTL.default, download: false, transform: null };
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  const { expiresIn = LINK_TTL.default, download = false, transform } = body;
  if (
    typeof expiresIn !== 'number' ||
    !Number.isInteger(expiresIn) ||
    expiresIn < LINK_TTL.min ||
    expiresIn > LINK_TTL.max
  ) {
    fail('invalid_request', `expiresIn must be whole seconds from 1 to ${LINK_TTL.max} (7 days).`);
  }
  if (typeof download !== 'boolean') fail('invalid_request', 'download must be true or false.');
  return { expiresIn, download, transform: parseTransform(transform) };
}

function parseTransform(transform: unknown): AskedLink['transform'] {
  if (transform === undefined || transform === null) return null;
  if (!isPlainObject(transform)) fail('invalid_request', 'transform must be a JSON object.');
  const out: NonNullable<AskedLink['transform']> = {};
  for (const [key, value] of Object.entries(transform)) {
    if (!TRANSFORM_KEYS.has(key)) {
      fail('invalid_request', `transform.${key} is not an image parameter (w, h, fit, format, q).`);
    }
    if (value === undefined) continue;
    if (key === 'w' || key === 'h') out[key] = String(wholeIn(value, 1, 4096, `transform.${key}`));
    else if (key === 'q') out.q = String(wholeIn(value, 1, 100, 'transform.q'));
    else if (key === 'fit') out.fit = oneOf(value, FITS, 'transform.fit');
    else out.format = oneOf(value, FORMATS, 'transform.format');
  }
  return Object.keys(out).length > 0 ? out : null;
}

function wholeIn(value: unknown, min: number, max: number, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail('invalid_request', `${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

function oneOf(value: unknown, allowed: readonly string[], name: string): string {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    fail('invalid_request', `${name} must be one of ${allowed.join(', ')}.`);
  }
  return value;
}
