import { finished } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { MAX_ONE_REQUEST_BYTES } from '../../../api/limits.js';
import type { UploadResponse } from '../../../api/types.js';
import type { ServiceContext } from '../../context.js';
import { fail, ServiceError } from '../../ground/errors.js';
import { mediaEssence, normalizeMediaType } from '../../ground/media-type.js';
import { bodyChunks, contentLength, limitBytes } from '../../http/body.js';
import { orStalled, untilStalled } from '../../http/body-pace.js';
import { whileServiceWorks } from '../../http/service-busy.js';
import { ScanWhileStoring } from '../../ingest/ingest.js';
import { parseMetadataJson } from '../../rules/metadata.js';
import { decodeFilenameHeader, sanitizeName } from '../../rules/names.js';
import { MULTIPART_OVERHEAD, multipartError, renewWhileReceiving } from '../../rules/receiving.js';
import { publicUrl } from '../../rules/records.js';
import { requireTypeFor, tokenTooLarge } from '../../rules/upload-tokens.js';
import { parseVisibility } from '../../rules/visibility.js';
import { type Received, receiveOneRequest, startReceiving } from '../../uploads/one-request.js';
import type { RouteInput } from '../route-input.js';

const tooLarge = () =>
  new ServiceError(
    'too_large',
    'The file is larger than 100 MiB, the limit of a one-request upload; use the multi-step upload for larger files.',
    {
      extra: { limit: MAX_ONE_REQUEST_BYTES },
    },
  );

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
  const receiving = await startReceiving(ctx, caller, request.ip, {
    name: rawMeta?.name ?? 'upload',
    mime: rawMeta?.mime ?? 'application/octet-stream',
    reserved,
    visibility: headerVisibility,
  });
  const { id } = receiving;
  const stopRenewing = renewWhileReceiving(ctx, request.log, () => [id]);
  const scanning = new ScanWhileStoring(ctx, receiving, declared);
  let received: Received;
  try {
    received = await receiveOneRequest(
      ctx,
      caller,
      receiving,
      async () =>
        rawMeta
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
            ),
      scanning,
      // The body is in; its scan may wait its turn: the service is busy, not the client.
      (work) => whileServiceWorks(request, work),
    );
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
