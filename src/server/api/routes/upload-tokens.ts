import type { UploadTokenResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { newId } from '../../ground/secrets.js';
import { newUploadTokenValue, parseTokenPolicy } from '../../rules/upload-tokens.js';
import type { RouteInput } from '../route-input.js';

/**
 * `POST /v1/upload-tokens` (secret key): mints an upload token for the project's backend to
 * hand to one uploader, with what it may upload (decisions.md, "Who may upload"). The
 * token is answered once; only its hash is kept.
 */
export async function createUploadTokenHandler(
  ctx: ServiceContext,
  { reply, caller, body }: RouteInput<'createUploadToken'>,
): Promise<void> {
  const { policy, expiresIn } = parseTokenPolicy(body, caller.project);
  const { token, hash } = newUploadTokenValue();
  const now = ctx.now();
  const expiresAt = now + expiresIn * 1000;
  await ctx.db.createUploadToken({
    id: newId('upt_id_'),
    projectId: caller.project.id,
    hash,
    policy,
    expiresAt,
    createdAt: now,
  });
  const answer: UploadTokenResponse = { token, expiresAt, ...policy };
  reply.code(201).header('Cache-Control', 'no-store').send(answer);
}
