import type { ImageTransform, SignedUrlResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { JsonBodyOf } from '../../contract/operations.js';
import { fail } from '../../ground/errors.js';
import { fileUrl } from '../../rules/names.js';
import { type LinkParameters, signedLinkQuery } from '../../rules/signed-link.js';
import type { RouteInput } from '../route-input.js';

/** A link's lifetime, seconds: from 1 s to 7 days, 1 hour when not asked. */
export const LINK_TTL = { min: 1, max: 7 * 24 * 3600, default: 3600 } as const;

/**
 * `POST /v1/files/:id/signed-url` (secret key): a CDN link to one of the project's files
 * that works until it expires, signed over the id, its parameters and its expiry
 * (`rules/signed-link.ts`). The only way a private file is served; a public file answers one
 * too, so a backend can sign without asking which kind a file is. A pending file may be
 * signed for: its link answers 404 until the file is ready, as its URL would.
 */
export async function signedUrlHandler(
  ctx: ServiceContext,
  { request, reply, caller, body }: RouteInput<'createSignedUrl', { id: string }>,
): Promise<void> {
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

/** The request's body, of its declared form (absent: every default). */
export function parseSignedUrlRequest(body: JsonBodyOf<'createSignedUrl'>): AskedLink {
  const { expiresIn = LINK_TTL.default, download = false, transform = {} } = body ?? {};
  const parameters = Object.entries(transform).filter(([, value]) => value !== undefined);
  return {
    expiresIn,
    download,
    transform:
      parameters.length > 0
        ? Object.fromEntries(parameters.map(([key, value]) => [key, String(value)]))
        : null,
  };
}
