import { PLAN_SIGN_CAP } from '../../../api/limits.js';
import type { ImportResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { fail } from '../../ground/errors.js';
import { parseTargetUrl } from '../../ground/targets.js';
import { importLeaseMs } from '../../imports/importer.js';
import type { Caller } from '../../rules/auth.js';
import { sanitizeName } from '../../rules/names.js';
import { anonymousCaps, projectQuota, reserveUploads } from '../../rules/quota.js';
import { toFileRecord } from '../../rules/records.js';
import { newUploadToken } from '../../rules/upload-access.js';
import { applyTokenPolicy } from '../../rules/upload-tokens.js';
import { newFileRow } from '../../uploads/new-file.js';
import type { RouteInput } from '../route-input.js';

/**
 * `POST /v1/uploads/import`: the service fetches `url` and stores it as a file. The row is
 * created `pending` at once, within the quotas (and the token's limits, the anonymous caps)
 * as a sign's would be, and answered `202`; the fetch runs on (`imports/importer.ts`). The
 * answer carries the import's own token, as a sign's does: whoever holds it follows the
 * import through `GET /v1/uploads/:id` (`imports/import-state.ts`), an upload token too.
 */
export async function importHandler(
  ctx: ServiceContext,
  { request, reply, caller, body: asked }: RouteInput<'importFromUrl'>,
): Promise<void> {
  // The form is the declaration's (ImportRequest); the URL's scheme and credentials, and
  // where it leads (checked as the fetch connects), are the service's own rules.
  const url = parseTargetUrl(asked.url);
  if (typeof url === 'string') fail('invalid_request', url);
  const given = { metadata: { ...asked.metadata }, visibility: asked.visibility ?? 'public' };
  const policy = caller.token?.policy ?? null;
  const now = ctx.now();
  const { maxBytes, reason } = await importLimit(ctx, caller, request.ip, now);
  const uploadToken = newUploadToken();
  const row = newFileRow(caller, request.ip, now, {
    // Until the answer's Content-Disposition is known: the caller's name, else the URL's.
    name: sanitizeName(asked.name ?? lastSegment(url)),
    mime: 'application/octet-stream',
    // Room is held for the most the file may have; it becomes the file's size when stored.
    size: maxBytes,
    status: 'pending',
    ...(policy ? applyTokenPolicy(policy, given.metadata, given.visibility) : given),
    partSize: null,
    checksum: null,
    // The lease of this instance's fetch, renewed as it goes (a pending import past it holds
    // no room and is failed by the next sweep).
    expiresAt: now + importLeaseMs(ctx),
    uploadTokenHash: uploadToken.hash,
    importState: { receivedBytes: 0, totalBytes: null, error: null },
    deleteAfter: policy?.deleteAfter ?? null,
  });
  await reserveUploads(ctx, caller, request.ip, [row], { now });
  ctx.imports.start({
    row,
    url,
    givenName: asked.name === undefined ? null : row.name,
    maxBytes,
    maxBytesReason: reason,
    allowedTypes: caller.project.allowedTypes,
    policy,
  });
  const answer: ImportResponse = { file: toFileRecord(ctx, row), uploadToken: uploadToken.token };
  reply.code(202).send(answer);
}

/**
 * The most bytes an import may bring: the plan's largest file, a token's `maxFileSize`, and
 * no more than what is left of a token's `maxBytes`, of the project's storage quota, and
 * for an anonymous import (publishable key alone) of the anonymous share and of the
 * client address's allowance. The size is not known before the fetch, so the import holds
 * this much while it runs; holding more than is left would refuse an import that fits.
 */
async function importLimit(
  ctx: ServiceContext,
  caller: Caller,
  address: string,
  now: number,
): Promise<{ maxBytes: number; reason: string }> {
  const { plan } = caller.project;
  let maxBytes = PLAN_SIGN_CAP[plan];
  let reason = `The file is larger than ${maxBytes} bytes, the limit of the ${plan} plan.`;
  const lower = (limit: number, why: string) => {
    if (limit < maxBytes) {
      maxBytes = Math.max(1, limit);
      reason = why;
    }
  };
  const policy = caller.token?.policy;
  if (policy?.maxFileSize != null) {
    lower(
      policy.maxFileSize,
      `The file is larger than ${policy.maxFileSize} bytes, the largest file this upload token allows.`,
    );
  }
  if (caller.token && policy?.maxBytes != null) {
    const used = (await ctx.db.tokenUsage(caller.token.id, now)).bytes;
    const left = policy.maxBytes - used;
    lower(left, `The file is larger than the ${left} bytes this upload token has left.`);
  }
  const { storageBytes } = projectQuota(caller.project);
  const anonymous =
    caller.keyKind === 'publishable' ? anonymousCaps(caller.project, address) : null;
  const usage =
    storageBytes !== null || anonymous ? await ctx.db.usage(caller.project.id, now) : null;
  if (storageBytes !== null && usage) {
    const left = storageBytes - usage.storedBytes - usage.pendingBytes;
    lower(left, `The file is larger than the ${left} bytes left in the project's storage quota.`);
  }
  if (anonymous && usage) {
    const { storageBytes: share } = anonymous.share;
    if (share !== null) {
      const left = share - usage.anonymousBytes;
      lower(
        left,
        `The file is larger than the ${left} bytes left of the share of the project's quota that uploads without an upload token may hold.`,
      );
    }
    const { perAddress } = anonymous;
    const held = await ctx.db.addressUsage(
      caller.project.id,
      anonymous.address,
      now,
      perAddress.windowMs,
    );
    const left = perAddress.bytes - held.addressBytes;
    lower(
      left,
      `The file is larger than the ${left} bytes this address may still upload without an upload token in the next ${perAddress.windowMs / 3_600_000} hours.`,
    );
  }
  return { maxBytes, reason };
}

/** The URL's last path segment, decoded, as a name to show until a better one is known. */
function lastSegment(url: URL): string | undefined {
  const last = url.pathname.split('/').at(-1);
  if (!last) return undefined;
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}
