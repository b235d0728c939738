import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BATCH, PLAN_SIGN_CAP, type Plan } from '../../../api/limits.js';
import type {
  FileMetadata,
  SignBatchResponse,
  SignResponse,
  Visibility,
} from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import type { FileRow, Project } from '../../db/metadata-store.js';
import {
  BATCH_JSON_LIMIT,
  isPlainObject,
  JSON_LIMIT,
  jsonDeadline,
  readSizedJson,
} from '../../http/body.js';
import { atIndex, fail, ServiceError } from '../../http/errors.js';
import { normalizeMediaType } from '../../http/media-type.js';
import { newId } from '../../secrets.js';
import { authenticate, type Caller } from '../auth.js';
import { validateMetadata } from '../metadata.js';
import { sanitizeName } from '../names.js';
import { reserveUploads } from '../quota.js';
import { choosePartSize, partLayout } from '../records.js';
import { SignRequest } from '../schemas/components.js';
import { check } from '../schemas/validate.js';
import { requireAllowedType } from '../stored-type.js';
import { newUploadToken, partUrlExpiry, pendingExpiry } from '../upload-access.js';
import { applyTokenPolicy, requireTokenFileSize, requireTokenType } from '../upload-tokens.js';
import { parseVisibility } from '../visibility.js';
import { signParts } from './upload-state.js';

/** Uploads of one batch created at once: enough to hide S3's round trips, few enough to be polite. */
const BATCH_CONCURRENCY = 8;

/** One file to sign, checked: what `createUpload` makes a pending upload of. */
export interface SignEntry {
  name: string;
  size: number;
  mime: string;
  metadata: FileMetadata;
  /** `checksum: true` was asked: parts must carry the digest the store checks. */
  checksum: boolean;
  /** Kept from sign to complete: what was chosen at sign is what the ready file is. */
  visibility: Visibility;
  /** Seconds after the sign at which the file deletes itself; null: never. */
  deleteAfter: number | null;
}

/**
 * `POST /v1/uploads/sign`: creates the file row as `pending` and answers with one signed
 * PUT URL per part. With `{ "files": [ … ] }` it signs 1 to 100 files at once, all or
 * nothing: every entry is checked before anything is created, and a fault half-way undoes
 * what was made.
 */
export async function signUploadHandler(
  ctx: ServiceContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const caller = await authenticate(ctx, request, { upload: 'start' });
  const { value: body, bytes } = await readSizedJson(request, {
    limit: BATCH_JSON_LIMIT,
    deadlineMs: jsonDeadline(ctx),
  });
  if (!isPlainObject(body)) fail('invalid_request', 'The body must be a JSON object.');
  if (body.files === undefined) {
    // One file: held to the limit it always had.
    if (bytes > JSON_LIMIT) {
      fail('invalid_request', `The JSON body is larger than ${JSON_LIMIT / 1024} KiB.`);
    }
    const entry = validateSignEntry(body, caller.project, caller);
    reply.code(201).send(await createUpload(ctx, caller, request.ip, entry));
    return;
  }
  const { files } = body;
  if (!Array.isArray(files) || files.length < 1 || files.length > MAX_BATCH) {
    fail('invalid_request', `files must be an array of 1 to ${MAX_BATCH} files to sign.`);
  }
  const entries = files.map((file: unknown, index) => {
    try {
      return validateSignEntry(file, caller.project, caller);
    } catch (error) {
      throw atIndex(error, index, 'files');
    }
  });
  const response: SignBatchResponse = {
    uploads: await createAll(ctx, caller, request.ip, entries),
  };
  reply.code(201).send(response);
}

/**
 * Checks one file to sign (a single sign's body, or one entry of a batch) and answers it
 * normalized; throws the documented error a single sign gives for it. With an upload token,
 * its policy applies too: its size and types bound the file, its metadata wins, its
 * visibility and `deleteAfter` are forced.
 */
export function validateSignEntry(
  body: unknown,
  project: Pick<Project, 'plan' | 'allowedTypes'>,
  caller: Pick<Caller, 'keyKind' | 'token'>,
): SignEntry {
  const { plan } = project;
  if (isPlainObject(body) && body.deleteAfter !== undefined && caller.keyKind !== 'secret') {
    fail(
      'secret_key_required',
      'deleteAfter at sign needs the secret key; an upload token sets it in its policy.',
    );
  }
  // The form is the schema's (SignRequest); what follows are the plan's and the project's rules.
  const { name, size, type, metadata, checksum, visibility, deleteAfter } = check(
    SignRequest,
    body,
    {
      '/size minimum': ({ data }) =>
        data === 0
          ? new ServiceError('empty_body', 'The file is empty: there are no bytes to upload.')
          : undefined,
      // Past 2^53 a number is no count of bytes at all.
      '/size maximum': ({ data }) => (Number.isSafeInteger(data) ? tooLarge(plan) : undefined),
    },
  );
  if (size > PLAN_SIGN_CAP[plan]) throw tooLarge(plan);
  const ownDeleteAfter = deleteAfter ?? null;
  const mime = normalizeMediaType(type, 'type');
  requireAllowedType(project.allowedTypes, mime, 'declared');
  const given = {
    metadata: validateMetadata(metadata, 'metadata'),
    visibility: parseVisibility(visibility, 'visibility'),
  };
  const policy = caller.token?.policy;
  if (policy) {
    requireTokenFileSize(policy, size);
    requireTokenType(policy, mime, 'declared');
  }
  return {
    name: sanitizeName(name),
    size,
    mime,
    ...(policy ? applyTokenPolicy(policy, given.metadata, given.visibility) : given),
    checksum: checksum === true,
    deleteAfter: policy ? policy.deleteAfter : ownDeleteAfter,
  };
}

/** A pending upload as sign makes it: its row (before its storage exists) and its token. */
interface NewUpload {
  row: FileRow;
  /** Answered once, in the sign answer; the row keeps only its hash. */
  token: string;
}

function newUpload(
  ctx: ServiceContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
): NewUpload {
  const now = ctx.now();
  const { token, hash } = newUploadToken();
  const row: FileRow = {
    id: newId(),
    projectId: caller.project.id,
    name: entry.name,
    mime: entry.mime,
    size: entry.size,
    createdAt: now,
    status: 'pending',
    metadata: entry.metadata,
    partSize: choosePartSize(entry.size, ctx.config.partSize),
    storageUploadId: null,
    expiresAt: pendingExpiry(ctx.config, now, null),
    deletedAt: null,
    // Null when the store checks no digest (S3 with FILEHOST_S3_CHECKSUM=none): the answer
    // says so, and the client sends none.
    checksum: entry.checksum ? ctx.blobs.partChecksum : null,
    uploadTokenHash: hash,
    completedParts: null,
    visibility: entry.visibility,
    deleteAt: entry.deleteAfter === null ? null : now + entry.deleteAfter * 1000,
    tokenId: caller.token?.id ?? null,
    anonymousAddress: caller.keyKind === 'publishable' ? address : null,
    importState: null,
  };
  return { row, token };
}

/**
 * Creates the storage side of a pending upload whose row exists, and records its id in the
 * row (so that a failed batch knows what to take back).
 */
async function createStorage(ctx: ServiceContext, row: FileRow): Promise<void> {
  row.storageUploadId = await ctx.blobs.createMultipart(row.id, {
    size: row.size,
    partSize: row.partSize as number,
    contentType: row.mime,
  });
}

/** The sign answer for a pending upload whose storage exists. */
async function signAnswer(ctx: ServiceContext, { row, token }: NewUpload): Promise<SignResponse> {
  const { id, expiresAt, partSize, checksum } = row as FileRow & {
    expiresAt: number;
    partSize: number;
  };
  const urlsExpireAt = partUrlExpiry(ctx.config, ctx.now(), expiresAt);
  return {
    id,
    uploadToken: token,
    expiresAt,
    partSize,
    checksum,
    parts: await signParts(ctx, row, partLayout(row.size, partSize), urlsExpireAt),
  };
}

/**
 * Creates one pending upload (its row, then its multipart upload) and signs its parts. The
 * row comes first: if the process dies before the storage side exists, the row still
 * expires and the sweeper cleans up whatever was created.
 */
async function createUpload(
  ctx: ServiceContext,
  caller: Caller,
  address: string,
  entry: SignEntry,
): Promise<SignResponse> {
  const upload = newUpload(ctx, caller, address, entry);
  const { row } = upload;
  await reserveUploads(ctx, caller, address, [row]);
  await createStorage(ctx, row);
  await ctx.db.setStorageUploadId(row.id, row.storageUploadId as string);
  return signAnswer(ctx, upload);
}

/**
 * Creates every upload of a batch in the order a single sign does, a step at a time for
 * all of them: the rows together (the embedded store commits writes that arrive together
 * as one transaction: one fsync for the batch, not one per file), then the storage side a
 * few at a time, then every storage id together. On the first failure no further upload is
 * started; once those under way have settled, everything made is taken back and the
 * failure is thrown (a fault of a store: 503 or 507, nothing left behind).
 */
async function createAll(
  ctx: ServiceContext,
  caller: Caller,
  address: string,
  entries: SignEntry[],
): Promise<SignResponse[]> {
  const uploads = entries.map((entry) => newUpload(ctx, caller, address, entry));
  const rows = uploads.map(({ row }) => row);
  try {
    await reserveUploads(ctx, caller, address, rows);
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < rows.length) {
        const index = next++;
        await createStorage(ctx, rows[index] as FileRow).catch((error: unknown) => {
          failed = true;
          throw error;
        });
      }
    };
    await settleAll(
      Array.from({ length: Math.min(BATCH_CONCURRENCY, rows.length) }, () => worker()),
    );
    await settleAll(
      rows.map(({ id, storageUploadId }) =>
        ctx.db.setStorageUploadId(id, storageUploadId as string),
      ),
    );
  } catch (error) {
    await undo(ctx, caller, rows);
    throw error;
  }
  return Promise.all(uploads.map((upload) => signAnswer(ctx, upload)));
}

/** Waits for every promise to settle, then throws the first failure if there was one. */
async function settleAll(promises: Promise<unknown>[]): Promise<void> {
  for (const outcome of await Promise.allSettled(promises)) {
    if (outcome.status === 'rejected') throw outcome.reason;
  }
}

/**
 * Best effort, after a batch failed half-way: each row made is marked deleted (it stops
 * being listed at once) and its multipart upload is aborted. What cannot be undone now (the
 * database is what failed) is left to the sweeper: a row still pending expires with its
 * URLs, a deleted row whose bytes remain is purged.
 */
async function undo(
  ctx: ServiceContext,
  caller: Caller,
  made: Pick<FileRow, 'id' | 'storageUploadId'>[],
): Promise<void> {
  await Promise.all(
    made.map(async ({ id, storageUploadId }) => {
      let row: FileRow | null = null;
      try {
        row = await ctx.db.markDeleted(caller.project.id, id, ctx.now());
        if (row || storageUploadId !== null) await ctx.blobs.delete(id, storageUploadId);
        if (row) await ctx.db.markPurged(id);
      } catch (error) {
        ctx.log.warn({ err: error, id }, 'a failed batch sign left an upload for the sweeper');
        // The database is what failed: the multipart upload can still go now.
        if (!row && storageUploadId !== null) {
          await ctx.blobs.delete(id, storageUploadId).catch(() => undefined);
        }
      }
    }),
  );
}

/** `413 too_large` for a file over the plan's cap. */
function tooLarge(plan: Plan): ServiceError {
  const cap = PLAN_SIGN_CAP[plan];
  return new ServiceError(
    'too_large',
    `The file is larger than ${formatCap(cap)}, the limit of the ${plan} plan.`,
    { extra: { limit: cap } },
  );
}

function formatCap(bytes: number): string {
  return bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${bytes / 1_000_000} MB`;
}
