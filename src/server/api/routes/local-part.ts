import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CHECKSUM_HEADER } from '../../../api/checksum.js';
import { MAX_PARTS } from '../../../api/limits.js';
import type { PartUploadResponse } from '../../../api/types.js';
import { declaredRoute, fastifyRoute } from '../../contract-reader/contract.js';
import { fail, ServiceError } from '../../ground/errors.js';
import { normalizeMediaType } from '../../ground/media-type.js';
import { bodyChunks, contentLength, exactBytes } from '../../http/body.js';
import { untilStalled } from '../../http/body-pace.js';
import { expectedDigest, verifyDigest } from '../../http/content-digest.js';
import { partLayout } from '../../rules/records.js';
import { BlobBusyError, BlobNotFoundError } from '../../storage/blob-store.js';
import {
  isValidKey,
  type LocalDiskBlobStore,
  PartReplacedError,
} from '../../storage/local-disk/local-disk-store.js';
import {
  CHECKSUM_REQUIREMENT_HEADER,
  type LocalPartChecksum,
  PART_HEADERS,
  SHARED_PART_PATH,
  type SignatureCheck,
} from '../../storage/local-disk/part-signer.js';

interface PartRequest {
  Params: { id: string; partNumber: string };
}

type Verify = (part: { size: number; type: string }) => SignatureCheck;

/** What a part PUT's credential says about it: how to check it, and the digest it requires. */
interface Credential {
  verify: Verify;
  /** Read from the credential, and trusted once `verify` says the credential is valid. */
  checksum: LocalPartChecksum | null;
}

/**
 * `PUT /v1/uploads/:id/parts/:partNumber?expires=…&signature=…`: a part at a URL of its
 * own, the local-disk store's counterpart of a presigned S3 part URL. Sign responses no
 * longer issue these (see `sharedPartRouteHandler`); URLs issued before keep working.
 */
export function partRouteHandler(store: LocalDiskBlobStore) {
  return async (request: FastifyRequest<PartRequest>, reply: FastifyReply): Promise<void> => {
    const { id } = request.params;
    const partNumber = parsePartNumber(request.params.partNumber);
    if (!isValidKey(id)) fail('not_found', 'No pending upload with this id.');
    const url = request.raw.url ?? '';
    const checksum = store.signer.urlChecksum(url);
    await receivePart(store, request, reply, id, partNumber, {
      checksum,
      verify: (part) =>
        store.signer.check(
          { uploadId: id, partNumber, size: part.size, type: part.type, checksum },
          url,
          store.now(),
        ),
    });
  };
}

/**
 * `PUT /v1/parts`, the URL every part of every upload is sent to, so that a browser's
 * preflight (cached per URL) is made once: the part's upload, number, expiry and signature
 * are in the `X-Filehost-*` headers the sign response lists. Only this exact URL (no query,
 * no other spelling) and only the canonical header values are valid.
 */
export function sharedPartRouteHandler(store: LocalDiskBlobStore) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.raw.url !== SHARED_PART_PATH) {
      fail('invalid_signature', `Part uploads go to ${SHARED_PART_PATH} exactly, as signed.`);
    }
    const credential = store.signer.readCredential(request.headers);
    if (!credential) {
      fail(
        'invalid_signature',
        `A part PUT must carry the ${Object.values(PART_HEADERS).join(', ')} headers exactly as signed.`,
      );
    }
    await receivePart(store, request, reply, credential.uploadId, credential.partNumber, {
      checksum: credential.checksum,
      verify: (part) =>
        store.signer.checkCredential(
          {
            uploadId: credential.uploadId,
            partNumber: credential.partNumber,
            size: part.size,
            type: part.type,
          },
          credential,
          store.now(),
        ),
    });
  };
}

/**
 * Chromium keeps a preflight for at most two hours (7,200 s), so that is the age given: a
 * page that uploads all day preflights its part PUTs a dozen times, not once per file.
 */
export const SHARED_PART_PREFLIGHT_MAX_AGE = 7200;

/**
 * `OPTIONS /v1/parts`: the part PUT's own headers are allowed (the API's other paths allow
 * theirs). Like every preflight it carries no credential and is answered alike for every
 * origin; the PUT is where the signature is checked. CORS response headers common to every
 * answer (`Access-Control-Allow-Origin`, `Vary`, exposed `ETag`) come from the API's hook.
 */
export async function sharedPartPreflight(
  _request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  reply
    .code(204)
    .header('Access-Control-Allow-Methods', 'PUT')
    .header(
      'Access-Control-Allow-Headers',
      [
        'Content-Type',
        ...Object.values(PART_HEADERS),
        CHECKSUM_REQUIREMENT_HEADER,
        CHECKSUM_HEADER.sha256,
      ].join(', '),
    )
    .header('Access-Control-Max-Age', String(SHARED_PART_PREFLIGHT_MAX_AGE))
    .send();
}

/**
 * What both part routes do once they know which part is meant: check that the credential
 * signs it, that it is an open upload's part, that the body has the signed type and length
 * (and, when the credential requires it, the digest it carries); then write it. The body
 * must be exactly the signed length with the signed Content-Type. Re-sending a part
 * replaces it. Everything it checks is the store's own: the service's database is not
 * consulted, as it would not be on S3.
 *
 * The signature is checked before the upload is looked up, against the length and type the
 * request declares: a forged credential is `403 invalid_signature` whether the upload
 * exists, is pending or complete, so it tells a stranger nothing. Only a credential that
 * signs none of what the request says is checked against the upload's own part, so that a
 * genuine one sent with the wrong length or type still hears what is wrong.
 */
async function receivePart(
  store: LocalDiskBlobStore,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  partNumber: number,
  credential: Credential,
): Promise<void> {
  const declared = contentLength(request);
  const declaredType = declaredMediaType(request);
  let check: SignatureCheck =
    declared === undefined || declaredType === null
      ? 'invalid'
      : credential.verify({ size: declared, type: declaredType });
  if (check === 'expired') fail('url_expired');
  const manifest = await store.manifest(id);
  const part = manifest ? partLayout(manifest.size, manifest.partSize)[partNumber - 1] : undefined;
  if (check === 'invalid' && manifest && part) {
    check = credential.verify({ size: part.size, type: manifest.contentType });
    if (check === 'expired') fail('url_expired');
  }
  if (check === 'invalid') fail('invalid_signature');
  if (!manifest) {
    if (await store.head(id)) fail('upload_not_pending');
    fail('not_found', 'No pending upload with this id.');
  }
  if (!part) fail('not_found', `This upload has no part ${partNumber}.`);
  const sentType = normalizeMediaType(request.headers['content-type'], 'Content-Type');
  if (sentType !== manifest.contentType) {
    fail(
      'invalid_signature',
      `The Content-Type header must be exactly the signed one (${manifest.contentType}); it is part of the signature.`,
    );
  }

  const mismatch = () =>
    new ServiceError('size_mismatch', `Part ${partNumber} must be exactly ${part.size} bytes.`, {
      extra: { expected: part.size },
    });
  if (declared !== undefined && declared !== part.size) throw mismatch();
  const { checksum } = credential;
  const digest =
    checksum && expectedDigest(request.headers[CHECKSUM_HEADER[checksum].toLowerCase()], checksum);
  const bytes = exactBytes(untilStalled(bodyChunks(request.raw), request.raw), part.size, mismatch);

  let etag: string;
  try {
    // A body that does not match its digest fails as it ends, before the store counts the
    // part as whole: it is refused like any failed write of the part (it is not whole after).
    ({ etag } = await store.writePart(
      id,
      part,
      checksum && digest ? verifyDigest(bytes, checksum, digest, partNumber) : bytes,
    ));
  } catch (error) {
    if (error instanceof PartReplacedError) {
      fail('upload_incomplete', `${error.message}; this write of it was not kept.`, {
        extra: { missingParts: [partNumber], mismatchedParts: [] },
      });
    }
    if (error instanceof BlobBusyError) {
      fail('upload_not_pending', 'The upload is being completed or is complete.');
    }
    if (error instanceof BlobNotFoundError) {
      if (await store.head(id)) fail('upload_not_pending');
      fail('not_found', 'The upload was cancelled.');
    }
    throw error;
  }
  const body: PartUploadResponse = { partNumber, size: part.size, etag };
  reply.header('ETag', etag).send(body);
}

/** The request's Content-Type as the signature reads it; null when it has none it could sign. */
function declaredMediaType(request: FastifyRequest): string | null {
  try {
    return normalizeMediaType(request.headers['content-type'], 'Content-Type');
  } catch {
    return null;
  }
}

function parsePartNumber(raw: string): number {
  if (!/^\d{1,5}$/.test(raw)) fail('not_found', 'No such part.');
  const value = Number(raw);
  if (value < 1 || value > MAX_PARTS) fail('not_found', 'No such part.');
  return value;
}

/**
 * The local-disk store's signed part PUTs, served on the API's own origin (S3 receives
 * parts at its own presigned URLs, so the scale deployment has none of these routes).
 */
export function registerLocalPartRoutes(app: FastifyInstance, store: LocalDiskBlobStore): void {
  // The declared path is SHARED_PART_PATH (serviceRoutes.sharedPart), the URL the store signs.
  const shared = declaredRoute('putPart');
  app.route({ ...fastifyRoute(shared), handler: sharedPartRouteHandler(store) });
  app.options(shared.url, sharedPartPreflight);
  // URLs of one part each, issued before parts shared one URL.
  app.route({
    ...fastifyRoute(declaredRoute('putPartAtItsUrl')),
    handler: partRouteHandler(store),
  });
}
