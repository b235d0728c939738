import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { MAX_ONE_REQUEST_BYTES } from '../../../api/limits.js';
import type { UploadResponse, Visibility } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { crashPoint } from '../../crash-points.js';
import { fileEvent } from '../../events/file-events.js';
import { bodyChunks, contentLength, limitBytes } from '../../http/body.js';
import { orStalled, untilStalled } from '../../http/body-pace.js';
import { fail, ServiceError } from '../../http/errors.js';
import { mediaEssence, normalizeMediaType } from '../../http/media-type.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { ingestStored, ScanWhileStoring } from '../../ingest/ingest.js';
import { abortReceiving } from '../../uploads/abort.js';
import { newFileRow } from '../../uploads/new-file.js';
import { parseMetadataJson } from '../metadata.js';
import { decodeFilenameHeader, sanitizeName } from '../names.js';
import { reserveUploads } from '../quota.js';
import {
  MULTIPART_OVERHEAD,
  multipartError,
  receivingExpiry,
  renewWhileReceiving,
} from '../receiving.js';
import { publicUrl } from '../records.js';
import type { RouteInput } from '../route-input.js';
import { readHead, storedType } from '../stored-type.js';
import { applyTokenPolicy, requireTypeFor, tokenTooLarge } from '../upload-tokens.js';
import { parseVisibility } from '../visibility.js';

const tooLarge = () =>
  new ServiceError(
    'too_large',
    'The file is larger than 100 MiB, the limit of a one-request upload; use the multi-step upload for larger files.',
    {
      extra: { limit: MAX_ONE_REQUEST_BYTES },
    },
  );

interface Received {
  name: string;
  mime: string;
  size: number;
  metadata: Record<string, string>;
  visibility: Visibility;
}

/**
 * `POST /v1/upload`: one file in one request, raw or multipart. The row is created as
 * `receiving` (invisible) before a byte is stored, so a crash mid-upload is found and
 * cleaned up at the next start; it turns `ready` only once the bytes are durable.
 */
export async function uploadHandler(
  ctx: ServiceContext,
  { request, reply, caller }: RouteInput<'upload'>,
): Promise<void> {
  const policy = caller.token?.policy ?? null;
  // The most a file may have: 100 MiB, or less when an upload token says so.
  const cap = Math.min(MAX_ONE_REQUEST_BYTES, policy?.maxFileSize ?? MAX_ONE_REQUEST_BYTES);
  const overCap = () => (cap < MAX_ONE_REQUEST_BYTES ? tokenTooLarge(cap) : tooLarge());
  // Every type check of this upload: the project's list, and the token's.
  const requireType = (type: string, what: 'declared' | 'recognised') =>
    requireTypeFor(caller.project.allowedTypes, policy, type, what);
  const multipart = mediaEssence(request.headers['content-type'] ?? '') === 'multipart/form-data';
  const declared = contentLength(request);
  if (declared !== undefined) {
    if (declared > MAX_ONE_REQUEST_BYTES + (multipart ? MULTIPART_OVERHEAD : 0)) throw tooLarge();
    if (!multipart && declared > cap) throw overCap();
    if (declared === 0) fail('empty_body');
  }
  // Everything that can be checked without the body is checked before storing any of it.
  const headerMetadata = parseMetadataJson(
    headerValue(request, 'x-metadata'),
    'The X-Metadata header',
  );
  const headerVisibility = parseVisibility(
    headerValue(request, 'x-visibility'),
    'The X-Visibility header',
  );
  const rawMeta = multipart
    ? null
    : {
        name: sanitizeName(decodeFilenameHeader(headerValue(request, 'x-filename'))),
        mime: normalizeMediaType(request.headers['content-type'], 'Content-Type'),
      };
  if (rawMeta) requireType(rawMeta.mime, 'declared');

  // Room is reserved for what the body may hold (a chunked one: the most it may), and the
  // reservation becomes the file's real size when it is stored.
  const reserved = Math.min(
    declared ?? Number.POSITIVE_INFINITY,
    cap + (multipart ? MULTIPART_OVERHEAD : 0),
  );
  const now = ctx.now();
  const receiving = newFileRow(caller, request.ip, now, {
    name: rawMeta?.name ?? 'upload',
    mime: rawMeta?.mime ?? 'application/octet-stream',
    size: reserved,
    status: 'receiving',
    metadata: {},
    visibility: headerVisibility,
    partSize: null,
    checksum: null,
    expiresAt: receivingExpiry(ctx),
    uploadTokenHash: null,
    importState: null,
    deleteAfter: policy?.deleteAfter ?? null,
  });
  const { id } = receiving;
  // One-request uploads are not pending uploads: only the storage quota applies (and the
  // anonymous caps, or the token's limits).
  await reserveUploads(ctx, caller, request.ip, [receiving], { now, storageOnly: true });
  const stopRenewing = renewWhileReceiving(ctx, request.log, () => [id]);
  const scanning = new ScanWhileStoring(ctx, receiving, declared);
  let received: Received;
  try {
    received = rawMeta
      ? {
          ...rawMeta,
          metadata: headerMetadata,
          visibility: headerVisibility,
          ...(await storeRaw(ctx, id, request, rawMeta.mime, cap, overCap, scanning)),
        }
      : await storeMultipart(
          ctx,
          id,
          request,
          { metadata: headerMetadata, visibility: headerVisibility },
          { cap, overCap, requireType },
        );
    if (received.size === 0) fail('empty_body');
    // What the file is, from its bytes; a type the project (or the token) does not take
    // keeps nothing.
    received.mime = await storedType(received.mime, await readHead(ctx.blobs, id, received.size));
    requireType(received.mime, 'recognised');
    if (policy)
      Object.assign(received, applyTokenPolicy(policy, received.metadata, received.visibility));
    // The body is in; its scan may wait its turn: the service is busy, not the client.
    const ingested = await whileServiceWorks(request, () =>
      ingestStored(ctx, receiving, 'receiving', received.mime, scanning),
    );
    received.size = ingested.size ?? received.size;
    crashPoint('upload:stored');
    const made = await ctx.db.markReady(
      id,
      'receiving',
      {
        ...received,
        scannedAt: ingested.scannedAt,
        placeholder: ingested.placeholder,
        createdAt: ctx.now(),
      },
      fileEvent(ctx, 'file.ready'),
    );
    if (!made) throw new Error(`Upload row ${id} left the receiving state`);
    crashPoint('event:recorded');
    ctx.events.kick();
  } catch (error) {
    await abortReceiving(ctx, id);
    throw error;
  } finally {
    stopRenewing();
  }
  const body: UploadResponse = {
    id,
    url: publicUrl(ctx, { id, name: received.name, visibility: received.visibility }),
    visibility: received.visibility,
    name: received.name,
    size: received.size,
    type: received.mime,
    deleteAt: receiving.deleteAt,
  };
  reply.code(201).send(body);
}

async function storeRaw(
  ctx: ServiceContext,
  id: string,
  request: FastifyRequest,
  contentType: string,
  cap: number,
  overCap: () => ServiceError,
  scanning: ScanWhileStoring,
): Promise<{ size: number }> {
  const body = limitBytes(untilStalled(bodyChunks(request.raw), request.raw), cap, overCap);
  return ctx.blobs.put(id, scanning.tee(body), { contentType });
}

/** What a multipart body's file part is held to: its largest size, and the type checks. */
interface PartRules {
  cap: number;
  overCap: () => ServiceError;
  requireType: (type: string, what: 'declared' | 'recognised') => void;
}

async function storeMultipart(
  ctx: ServiceContext,
  id: string,
  request: FastifyRequest,
  fromHeaders: Pick<Received, 'metadata' | 'visibility'>,
  rules: PartRules,
): Promise<Received> {
  let stored: Omit<Received, 'metadata' | 'visibility'> | null = null;
  // Fields may come before or after the file part; the form's field wins over the header.
  let { metadata, visibility } = fromHeaders;
  try {
    for await (const part of untilStalled(request.parts(), request.raw)) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          // Another form's file input: not ours to keep, so read past it. `finished`, not
          // 'end': a connection cut mid-part must fail this request, not leave it waiting.
          part.file.resume();
          await orStalled(finished(part.file), request.raw);
          continue;
        }
        if (stored) fail('invalid_request', 'The multipart body has more than one "file" part.');
        const name = sanitizeName(part.filename);
        const mime = normalizeMediaType(part.mimetype, 'The Content-Type of the file part');
        rules.requireType(mime, 'declared');
        const bytes = untilStalled<Buffer>(part.file, request.raw);
        const { size } = await ctx.blobs.put(id, limitBytes(bytes, rules.cap, rules.overCap), {
          contentType: mime,
        });
        stored = { name, mime, size };
      } else if (part.fieldname === 'metadata') {
        metadata = parseMetadataJson(String(part.value), 'The metadata field');
      } else if (part.fieldname === 'visibility') {
        visibility = parseVisibility(String(part.value), 'The visibility field');
      }
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw multipartError(error);
  }
  if (!stored) fail('missing_file');
  return { ...stored, metadata, visibility };
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) fail('invalid_request', `Send the ${name} header once.`);
  return value;
}
