import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type ListMultipartUploadsCommandOutput,
  ListObjectsV2Command,
  ListPartsCommand,
  type ListPartsCommandOutput,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { PartChecksum } from '../../../api/checksum.js';
import { MIN_PART_SIZE } from '../../../api/limits.js';
import type { SignedPart } from '../../../api/types.js';
import { ConfigError } from '../../ground/config.js';
import {
  assertDerivedName,
  BlobNotFoundError,
  type BlobStore,
  BlobUnavailableError,
  type ByteRange,
  type HeldPart,
  type MultipartUpload,
  type PartPlacement,
  type RangeSender,
} from '../blob-store.js';
import { RangeReader } from './range-reader.js';
import {
  codeOf,
  isNoSuchKey,
  isNoSuchUpload,
  isUploadGone,
  statusOf,
  toStoreError,
} from './s3-errors.js';
import { guardStalls } from './stall-guard.js';

const MiB = 1024 * 1024;
/** S3's longest presigned URL lifetime (SigV4). */
const MAX_PRESIGN_SECONDS = 7 * 24 * 60 * 60;

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** Unset: AWS's own endpoint for the region. Set it for any other S3-compatible store. */
  endpoint?: string;
  /** `true` for stores that cannot take the bucket in the host name (most but AWS). */
  forcePathStyle?: boolean;
  /** Unset: the SDK's default chain (environment, profile, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /**
   * Put before every key (`files/`), so the bucket may hold other things and a lifecycle
   * rule can target these objects alone. Default `''`.
   */
  keyPrefix?: string;
  /** Default 3000 ms: a store that does not accept a connection by then is down. */
  connectionTimeoutMs?: number;
  /**
   * Default 5000 ms: how long the store may send nothing while an answer is awaited or a
   * body is read. AWS keeps a long `CompleteMultipartUpload` alive with whitespace, so
   * silence this long means a hung store: the request gets `503 unavailable` within about
   * ten seconds (two attempts), as the README promises, instead of hanging.
   */
  idleTimeoutMs?: number;
  /** Default 2: one retry of a transient failure; more would hold requests for long. */
  maxAttempts?: number;
  /** Default 128: concurrent connections to the store (every CDN download holds one). */
  maxSockets?: number;
  /**
   * Default 8 MiB: the part size of a streamed `put`. `putQueueSize` parts (default 2) are
   * in memory at once per `put`, so a 100 MiB upload costs about 16-24 MiB, not 100.
   */
  putPartSize?: number;
  putQueueSize?: number;
  /**
   * Default `md5`: uploads signed with checksums carry `Content-MD5` on every part PUT,
   * which S3 and every S3-compatible store check (a wrong digest is `400 BadDigest`, and the
   * part is not stored). `none` for a store that refuses the header: those uploads are
   * answered `checksum: null`. (`x-amz-checksum-sha256` is not offered: Ceph RGW 16 accepts
   * it without checking it, so it would promise what it does not do there.)
   */
  checksum?: 'md5' | 'none';
}

/**
 * Bytes in an S3 bucket: AWS, or any S3-compatible store by configuration alone (tested on
 * Ceph's RADOS Gateway). Part bytes go from the browser straight to the bucket through
 * presigned `UploadPart` URLs; this service never sees them.
 *
 * What the bucket needs:
 * - CORS allowing `PUT` from the pages' origins and exposing `ETag` (the client reads each
 *   part's ETag to complete);
 * - a lifecycle rule `AbortIncompleteMultipartUpload` (a day or so): a process killed
 *   during a streamed `put` leaves a multipart upload that nothing else will ever remove;
 * - for these credentials: `s3:GetObject`, `PutObject`, `DeleteObject`,
 *   `AbortMultipartUpload`, `ListMultipartUploadParts`, `ListBucketMultipartUploads` and
 *   `ListBucket` (without it AWS answers 403 instead of 404 for a missing key).
 *
 * Presigned URLs can outlive neither the signing credentials nor, with temporary
 * credentials (a role), their session: give the service long-lived keys if upload URLs
 * must last longer than the role's session.
 */
/** How long a readiness probe waits for the bucket (`GET /readyz` allows 1 s). */
const PROBE_TIMEOUT_MS = 1000;

export class S3BlobStore implements BlobStore {
  /**
   * The part URL stays S3's own, signed without the digest (known only when the part is
   * sent): the client adds `Content-MD5`, and S3 checks it whether it is signed or not.
   */
  readonly partChecksum: PartChecksum | null;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #endpoint: string | undefined;
  readonly #keyPrefix: string;
  readonly #idleMs: number;
  readonly #putPartSize: number;
  readonly #putQueueSize: number;
  readonly #ranges: RangeReader;

  constructor(options: S3BlobStoreOptions) {
    const {
      bucket,
      region,
      endpoint,
      forcePathStyle = false,
      credentials,
      keyPrefix = '',
      connectionTimeoutMs = 3000,
      idleTimeoutMs = 5_000,
      maxAttempts = 2,
      maxSockets = 128,
      putPartSize = 8 * MiB,
      putQueueSize = 2,
      checksum = 'md5',
    } = options;
    if (typeof bucket !== 'string' || bucket === '') {
      throw new TypeError('S3BlobStore: `bucket` must be a bucket name');
    }
    if (typeof region !== 'string' || region === '') {
      throw new TypeError('S3BlobStore: `region` must be a region such as us-east-1');
    }
    if (endpoint !== undefined && !URL.canParse(endpoint)) {
      throw new TypeError(`S3BlobStore: \`endpoint\` must be a URL, got ${endpoint}`);
    }
    if (keyPrefix.startsWith('/')) {
      throw new TypeError('S3BlobStore: `keyPrefix` must not start with "/"');
    }
    if (checksum !== 'md5' && checksum !== 'none') {
      throw new TypeError('S3BlobStore: `checksum` must be md5 or none');
    }
    if (!Number.isInteger(putPartSize) || putPartSize < MIN_PART_SIZE) {
      throw new TypeError(`S3BlobStore: \`putPartSize\` must be at least ${MIN_PART_SIZE}`);
    }
    for (const [name, value] of Object.entries({
      connectionTimeoutMs,
      idleTimeoutMs,
      maxAttempts,
      maxSockets,
      putQueueSize,
    })) {
      if (!Number.isInteger(value) || value < 1) {
        throw new TypeError(`S3BlobStore: \`${name}\` must be a positive integer`);
      }
    }
    this.partChecksum = checksum === 'md5' ? 'md5' : null;
    this.#bucket = bucket;
    this.#endpoint = endpoint;
    this.#keyPrefix = keyPrefix;
    this.#idleMs = idleTimeoutMs;
    this.#putPartSize = putPartSize;
    this.#putQueueSize = putQueueSize;
    const config: S3ClientConfig = {
      region,
      forcePathStyle,
      maxAttempts,
      // Only what S3 requires: CRC32 headers and trailers are not known by every
      // S3-compatible store, and RGW 16 accepts but never checks them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: connectionTimeoutMs,
        // An idle timeout: it is reset by every byte sent or received, so a long upload
        // or download is fine. (`requestTimeout` in this SDK is a deadline for the
        // response headers, which only warns unless `throwOnRequestTimeout` is set.)
        socketTimeout: idleTimeoutMs,
        httpAgent: { keepAlive: true, maxSockets },
        httpsAgent: { keepAlive: true, maxSockets },
      },
    };
    if (endpoint !== undefined) config.endpoint = endpoint;
    if (credentials !== undefined) config.credentials = credentials;
    this.#client = new S3Client(config);
    this.#ranges = new RangeReader({
      client: this.#client,
      bucket,
      region,
      idleMs: idleTimeoutMs,
      maxSockets,
    });
  }

  async recover(): Promise<void> {
    // Nothing to clean: what a crash leaves (an open multipart upload of a streamed put)
    // may belong to another instance still receiving it; the lifecycle rule removes it.
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      const where = this.#endpoint ?? "AWS's endpoint for the region";
      const message = `S3 bucket "${this.#bucket}" at ${where} is not usable (${describeBucketFailure(error)})`;
      const mapped = toStoreError(error, 'reach the bucket');
      if (mapped instanceof BlobUnavailableError) {
        throw new BlobUnavailableError(mapped.reason, message, { cause: error });
      }
      // Reachable but refusing (no such bucket, no access): a setting to change.
      throw new ConfigError('FILEHOST_S3_BUCKET', message);
    }
  }

  /** A `HEAD` on the bucket: unreachable, hung, or refusing, it fails. */
  async probe(): Promise<void> {
    try {
      // A hung gateway is given up on with the probe's deadline, not the client's own.
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }), {
        abortSignal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
      });
    } catch (error) {
      throw toStoreError(error, 'reach the bucket');
    }
  }

  async put(
    key: string,
    source: AsyncIterable<Buffer> | Readable,
    options: { contentType: string },
  ): Promise<{ size: number }> {
    const objectKey = this.#objectKey(key);
    const read = { bytes: 0, failure: null as { error: unknown } | null };
    async function* counted(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of source) {
          read.bytes += chunk.length;
          yield chunk;
        }
      } catch (error) {
        read.failure = { error };
        throw error;
      }
    }
    // lib-storage cuts the stream into parts (multipart above one part) and, when the
    // source fails, aborts the multipart upload before `done()` settles.
    const upload = new Upload({
      client: this.#client,
      params: {
        Bucket: this.#bucket,
        Key: objectKey,
        Body: Readable.from(counted(), { objectMode: false }),
        ContentType: options.contentType,
      },
      partSize: this.#putPartSize,
      queueSize: this.#putQueueSize,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      // The source's own error (a size limit, a client that went away) is what the caller
      // must see. If aborting failed too, the upload is left for `delete` (which aborts
      // every upload under the key) or the bucket's lifecycle rule.
      if (read.failure) throw read.failure.error;
      throw toStoreError(error, 'store an object');
    }
    return { size: read.bytes };
  }

  async get(key: string, range?: ByteRange): Promise<Readable | null> {
    return this.#read(this.#objectKey(key), range);
  }

  /** One signed GET past the SDK's middleware (`range-reader.ts`): the CDN's answers. */
  async streamRange(key: string, range: ByteRange): Promise<Readable | null> {
    const body = await this.#ranges.stream(this.#objectKey(key), range);
    if (!body) return null;
    // As for the SDK's bodies (`#read`): the stall guard, not the socket's idle timer.
    body.socket?.setTimeout(0);
    return guardStalls(body, this.#idleMs);
  }

  /** The ranged GET of `streamRange`, relayed to the answer (`RangeReader.send`). */
  openSender(key: string, range: ByteRange): Promise<RangeSender | null> {
    return this.#ranges.send(this.#objectKey(key), range);
  }

  async head(key: string): Promise<{ size: number } | null> {
    return this.#head(this.#objectKey(key));
  }

  /** One signed GET, past the SDK's middleware (`range-reader.ts`): the CDN's small answers. */
  readRange(key: string, range: ByteRange): Promise<Buffer | null> {
    return this.#ranges.read(this.#objectKey(key), range);
  }

  async #read(objectKey: string, range?: ByteRange): Promise<Readable | null> {
    let body: unknown;
    try {
      const output = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      body = output.Body;
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw toStoreError(error, 'read an object');
    }
    if (!(body instanceof Readable)) throw new Error('S3 GetObject answered without a body');
    // From here the stall guard watches the body instead of the socket's idle timer, which
    // would also fire while the reader (a slow client of the CDN) holds the stream back.
    if (body instanceof IncomingMessage) body.socket?.setTimeout(0);
    return guardStalls(body, this.#idleMs);
  }

  async #head(objectKey: string): Promise<{ size: number } | null> {
    try {
      const output = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: objectKey }),
      );
      return { size: output.ContentLength ?? 0 };
    } catch (error) {
      if (isNoSuchKey(error)) return null;
      throw toStoreError(error, 'look up an object');
    }
  }

  async delete(key: string, uploadId?: string | null): Promise<void> {
    const objectKey = this.#objectKey(key);
    try {
      // Uploads first: an upload completed after the object was deleted would bring it back.
      if (uploadId) await this.#abort(objectKey, uploadId);
      for (const other of await this.#uploadsOf(objectKey)) {
        if (other !== uploadId) await this.#abort(objectKey, other);
      }
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: objectKey }));
    } catch (error) {
      throw toStoreError(error, 'delete an object');
    }
  }

  async putDerived(
    key: string,
    name: string,
    bytes: Buffer,
    options: { contentType: string },
  ): Promise<void> {
    try {
      await this.#client.send(
        new PutObjectCommand({
          Bucket: this.#bucket,
          Key: this.#derivedKey(key, name),
          Body: bytes,
          ContentLength: bytes.length,
          ContentType: options.contentType,
        }),
      );
    } catch (error) {
      throw toStoreError(error, 'store a derived object');
    }
  }

  async getDerived(key: string, name: string, range?: ByteRange): Promise<Readable | null> {
    return this.#read(this.#derivedKey(key, name), range);
  }

  async headDerived(key: string, name: string): Promise<{ size: number } | null> {
    return this.#head(this.#derivedKey(key, name));
  }

  /**
   * Listed by the key's prefix, then removed one by one: a file has a handful, and
   * `DeleteObjects` needs a body checksum that not every S3-compatible store takes the way
   * the SDK now sends it. Each listing starts again from the front, as what it listed is gone.
   */
  async deleteDerived(key: string): Promise<void> {
    const prefix = this.#derivedKey(key, '');
    try {
      for (;;) {
        const listed = await this.#client.send(
          new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix }),
        );
        const keys = (listed.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : []));
        if (keys.length === 0) return;
        await Promise.all(
          keys.map((Key) =>
            this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key })),
          ),
        );
        if (!listed.IsTruncated) return;
      }
    } catch (error) {
      throw toStoreError(error, 'delete derived objects');
    }
  }

  async deleteDerivedObject(key: string, name: string): Promise<void> {
    try {
      await this.#client.send(
        new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#derivedKey(key, name) }),
      );
    } catch (error) {
      throw toStoreError(error, 'delete a derived object');
    }
  }

  async createMultipart(
    key: string,
    options: { size: number; partSize: number; contentType: string },
  ): Promise<string> {
    let uploadId: string | undefined;
    try {
      const output = await this.#client.send(
        new CreateMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: this.#objectKey(key),
          ContentType: options.contentType,
        }),
      );
      uploadId = output.UploadId;
    } catch (error) {
      throw toStoreError(error, 'start a multipart upload');
    }
    if (!uploadId) throw new Error('S3 CreateMultipartUpload answered without an UploadId');
    return uploadId;
  }

  async signPart(
    upload: MultipartUpload,
    part: PartPlacement,
    expiresAt: number,
  ): Promise<SignedPart> {
    const expiresIn = Math.min(
      MAX_PRESIGN_SECONDS,
      Math.max(1, Math.ceil((expiresAt - Date.now()) / 1000)),
    );
    // ContentLength is signed in (X-Amz-SignedHeaders=content-length;host), so S3 refuses
    // a body of any other size (403 SignatureDoesNotMatch). The browser sets that header
    // from the body itself and the host from the URL, so the client adds no header; the
    // content type was fixed when the upload was created.
    const url = await getSignedUrl(
      this.#client,
      new UploadPartCommand({
        Bucket: this.#bucket,
        Key: this.#objectKey(upload.key),
        UploadId: upload.uploadId,
        PartNumber: part.partNumber,
        ContentLength: part.size,
      }),
      { expiresIn },
    );
    return { partNumber: part.partNumber, size: part.size, method: 'PUT', url, headers: {} };
  }

  async putPart(
    upload: MultipartUpload,
    part: PartPlacement,
    bytes: Buffer | AsyncIterable<Buffer>,
  ): Promise<{ etag: string }> {
    const source = { failure: null as { error: unknown } | null };
    async function* watched(from: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
      try {
        yield* from;
      } catch (error) {
        source.failure = { error };
        throw error;
      }
    }
    try {
      const output = await this.#client.send(
        new UploadPartCommand({
          Bucket: this.#bucket,
          Key: this.#objectKey(upload.key),
          UploadId: upload.uploadId,
          PartNumber: part.partNumber,
          // A stream's length is the part's, signed in: S3 refuses a body of another.
          Body: Buffer.isBuffer(bytes) ? bytes : quietStream(watched(bytes)),
          ContentLength: part.size,
        }),
      );
      if (!output.ETag) throw new Error('S3 UploadPart answered without an ETag');
      return { etag: quoted(output.ETag) };
    } catch (error) {
      // The source's own failure (a cut body, a slow sender) is what the caller must see.
      if (source.failure) throw source.failure.error;
      if (isUploadGone(error)) throw new BlobNotFoundError(upload.key);
      throw toStoreError(error, 'store a part');
    }
  }

  async listParts(upload: MultipartUpload): Promise<HeldPart[]> {
    const parts: HeldPart[] = [];
    let marker: string | undefined;
    try {
      for (;;) {
        const output: ListPartsCommandOutput = await this.#client.send(
          new ListPartsCommand({
            Bucket: this.#bucket,
            Key: this.#objectKey(upload.key),
            UploadId: upload.uploadId,
            PartNumberMarker: marker,
          }),
        );
        for (const part of output.Parts ?? []) {
          if (part.PartNumber === undefined || part.ETag === undefined) continue;
          parts.push({
            partNumber: part.PartNumber,
            size: part.Size ?? 0,
            etag: quoted(part.ETag),
            ...(part.LastModified ? { arrivedAt: part.LastModified.getTime() } : {}),
          });
        }
        const next = output.NextPartNumberMarker;
        // A marker that does not move would loop forever on a store that gets it wrong.
        if (!output.IsTruncated || !next || next === marker) break;
        marker = next;
      }
    } catch (error) {
      if (isUploadGone(error)) throw new BlobNotFoundError(upload.key);
      throw toStoreError(error, 'list the parts of an upload');
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async completeMultipart(
    upload: MultipartUpload,
    parts: { partNumber: number; etag: string }[],
  ): Promise<void> {
    const objectKey = this.#objectKey(upload.key);
    try {
      await this.#client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          UploadId: upload.uploadId,
          MultipartUpload: {
            Parts: [...parts]
              .sort((a, b) => a.partNumber - b.partNumber)
              .map((part) => ({ PartNumber: part.partNumber, ETag: quoted(part.etag) })),
          },
        }),
      );
    } catch (error) {
      // Stores disagree on how they refuse to complete an upload that is gone: AWS says
      // NoSuchUpload, RGW 16 says 500 InternalError ("already in progress") once it was
      // aborted. So ask the store what is there instead of reading the error.
      if ((await this.#uploadExists(upload).catch(() => true)) === false) {
        // A completed upload is gone too: a retry after a lost answer must succeed.
        if ((await this.head(upload.key)) !== null) return;
        throw new BlobNotFoundError(upload.key);
      }
      throw toStoreError(error, 'complete a multipart upload');
    }
  }

  async abortMultipart(upload: MultipartUpload): Promise<void> {
    try {
      await this.#abort(this.#objectKey(upload.key), upload.uploadId);
    } catch (error) {
      throw toStoreError(error, 'abort a multipart upload');
    }
  }

  async close(): Promise<void> {
    this.#ranges.close();
    this.#client.destroy();
  }

  #objectKey(key: string): string {
    if (typeof key !== 'string' || key === '') throw new TypeError('A blob key must not be empty');
    return this.#keyPrefix + key;
  }

  /**
   * `derived/<key>/<name>`: under a folder of their own, so that listing one key's derived
   * objects by prefix never meets another key's (keys have no `/`).
   */
  #derivedKey(key: string, name: string): string {
    if (key.includes('/')) throw new TypeError(`Invalid blob key: ${JSON.stringify(key)}`);
    if (name !== '') assertDerivedName(name);
    return `${this.#objectKey(`derived/${key}`)}/${name}`;
  }

  async #abort(objectKey: string, uploadId: string): Promise<void> {
    try {
      await this.#client.send(
        new AbortMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          UploadId: uploadId,
        }),
      );
    } catch (error) {
      if (!isNoSuchUpload(error)) throw error;
    }
  }

  async #uploadExists(upload: MultipartUpload): Promise<boolean> {
    try {
      await this.#client.send(
        new ListPartsCommand({
          Bucket: this.#bucket,
          Key: this.#objectKey(upload.key),
          UploadId: upload.uploadId,
          MaxParts: 1,
        }),
      );
      return true;
    } catch (error) {
      if (isUploadGone(error)) return false;
      throw error;
    }
  }

  /** Every unfinished upload of exactly this key (the listing is by prefix). */
  async #uploadsOf(objectKey: string): Promise<string[]> {
    const uploadIds: string[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    for (;;) {
      const output: ListMultipartUploadsCommandOutput = await this.#client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.#bucket,
          Prefix: objectKey,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const upload of output.Uploads ?? []) {
        if (upload.Key === objectKey && upload.UploadId) uploadIds.push(upload.UploadId);
      }
      if (!output.IsTruncated) break;
      if (output.NextKeyMarker === keyMarker && output.NextUploadIdMarker === uploadIdMarker) {
        break;
      }
      keyMarker = output.NextKeyMarker;
      uploadIdMarker = output.NextUploadIdMarker;
    }
    return uploadIds;
  }
}

/** Why HeadBucket failed, and which settings to look at: the one line an operator reads. */
function describeBucketFailure(error: unknown): string {
  const status = statusOf(error);
  const code = codeOf(error);
  if (status === 404) return 'no such bucket; check FILEHOST_S3_BUCKET and FILEHOST_S3_ENDPOINT';
  if (status === 403 || code === 'CredentialsProviderError') {
    return `${status === 403 ? 'access denied' : (error as Error).message}; check FILEHOST_S3_ACCESS_KEY_ID and FILEHOST_S3_SECRET_ACCESS_KEY (or the role's policy) and FILEHOST_S3_BUCKET`;
  }
  if (status === 301 || status === 400) {
    return `${code ?? 'error'} ${status}: the bucket is in another region; check FILEHOST_S3_REGION and FILEHOST_S3_ENDPOINT`;
  }
  const what = `${code ?? 'error'}${status ? ` ${status}` : ''}: ${(error as Error).message}`;
  return `${what}; check FILEHOST_S3_ENDPOINT and FILEHOST_S3_BUCKET`;
}

/** ETags travel quoted (`"…"`); some clients strip the quotes. */
function quoted(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}

/**
 * A stream of `source` for a request body. Its failure is heard by the request (which then
 * fails) and rethrown by the caller; the SDK may stop listening once the request has
 * failed, so the stream's own error event is listened to here, never left uncaught.
 */
function quietStream(source: AsyncIterable<Buffer>): Readable {
  const stream = Readable.from(source, { objectMode: false });
  stream.on('error', () => undefined);
  return stream;
}
