import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { BlobUnavailableError, type ByteRange, type RangeSender } from '../blob-store.js';
import { relayBody } from './body-relay.js';
import { BucketConnectionError, BucketConnections, DECLINED } from './bucket-connections.js';
import { carriesRange, rangeHeader } from './range-answer.js';

/** SHA-256 (and its HMAC, given a secret) from `node:crypto`, in the shape SigV4 signing asks. */
export class NodeSha256 {
  readonly #hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.#hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.#hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return this.#hash.digest();
  }
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): Buffer | string {
  if (typeof data === 'string') return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** A key's path segments as S3 (and the SDK) encode them: `encodeURIComponent` and `!'()*`. */
function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(
        /[!'()*]/g,
        (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
      ),
    )
    .join('/');
}

/**
 * Each kept-alive connection's two relay buffers are this size (`bucket-connections.ts`):
 * what one read of a loopback or LAN socket gives at most, so no read is cut short.
 */
const RELAY_CHUNK_BYTES = 256 * 1024;

/** The head of a GET with `headers` (already signed), as sent on the wire. */
function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n`;
}

/** A key no object has: its presigned URL shows where the SDK addresses objects. */
const PROBE_KEY = 'filehost-address-probe';

/**
 * A few bytes of an object, read with one signed `GET` on a kept-alive connection, without
 * the SDK's middleware stack: for the CDN's small answers at scale, where that stack (the
 * endpoint rules, the retry and logging middleware, the response's deserialisation) was a
 * third of the CPU a 1 KiB answer cost (a CPU profile, test/bench/README.md). The request
 * is the SDK's own in every way that matters: signed by its SigV4 signer with the client's
 * credentials (the same provider, so rotated credentials are followed), at the address the
 * SDK itself resolves for the bucket (learnt once from a presigned URL, so path or
 * virtual-host style and any endpoint are the SDK's choice). No retry: a failure is the
 * caller's to handle (the CDN answers through the SDK's path then).
 */
export class RangeReader {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #idleMs: number;
  readonly #signer: SignatureV4;
  readonly #agents: { http: HttpAgent; https: HttpsAgent };
  readonly #maxSockets: number;
  #base: Promise<URL> | undefined;
  #connections: BucketConnections | undefined;

  constructor(options: {
    client: S3Client;
    bucket: string;
    region: string;
    idleMs: number;
    maxSockets: number;
  }) {
    this.#client = options.client;
    this.#bucket = options.bucket;
    this.#idleMs = options.idleMs;
    const client = options.client;
    this.#signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: () => client.config.credentials(),
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    this.#maxSockets = options.maxSockets;
    const agent = { keepAlive: true, maxSockets: options.maxSockets };
    this.#agents = { http: new HttpAgent(agent), https: new HttpsAgent(agent) };
  }

  /** Bytes `range` of `objectKey`; null when there is no such object. */
  async read(objectKey: string, range: ByteRange): Promise<Buffer | null> {
    const response = await this.#ranged(objectKey, range);
    if (!response) return null;
    const body = await this.#body(response);
    const wanted = range.end - range.start + 1;
    if (body.length < wanted) throw new Error(`${objectKey} ends before byte ${range.end}`);
    return body.length === wanted ? body : body.subarray(0, wanted);
  }

  /**
   * Bytes `range` of `objectKey` as they arrive (the response body itself, its length the
   * range's); null when there is no such object.
   */
  async stream(objectKey: string, range: ByteRange): Promise<IncomingMessage | null> {
    return this.#ranged(objectKey, range);
  }

  /**
   * Bytes `range` of `objectKey` relayed to the CDN's answer; null when there is no such
   * object. On a plain-HTTP endpoint (a gateway beside the instances, as RGW usually is)
   * through `bucket-connections.ts`, which allocates nothing per chunk; an answer that path
   * does not relay (an error, a missing object) is asked again through `node:http` and read
   * as `stream` reads it.
   */
  async send(objectKey: string, range: ByteRange): Promise<RangeSender | null> {
    const { url, headers } = await this.#signedGet(objectKey, range);
    if (url.protocol === 'http:') {
      let opened: Awaited<ReturnType<BucketConnections['open']>> | null = null;
      try {
        opened = await this.#plainConnections(url).open(requestHead(url, headers), (head) =>
          carriesRange(range, head),
        );
      } catch (error) {
        // A kept-alive connection the bucket closed while idle: asked again below.
        if (!(error instanceof BucketConnectionError && error.reused)) throw error;
      }
      if (opened && opened !== DECLINED) return opened;
    }
    const body = await this.stream(objectKey, range);
    if (!body) return null;
    // The relay's stall rule, not the socket's idle timer.
    body.socket?.setTimeout(0);
    return { sendTo: (destination) => relayBody(body, destination, this.#idleMs) };
  }

  #plainConnections(url: URL): BucketConnections {
    this.#connections ??= new BucketConnections({
      host: url.hostname,
      port: Number(url.port || 80),
      maxSockets: this.#maxSockets,
      chunkBytes: RELAY_CHUNK_BYTES,
      idleMs: this.#idleMs,
    });
    return this.#connections;
  }

  /** The answer to a ranged GET whose bytes are the range's: null for no such object. */
  async #ranged(objectKey: string, range: ByteRange): Promise<IncomingMessage | null> {
    const { url, headers } = await this.#signedGet(objectKey, range);
    const response = await this.#get(url, headers);
    const status = response.statusCode ?? 0;
    const declared = response.headers['content-length'];
    const length = declared === undefined ? null : Number(declared);
    const contentRange = response.headers['content-range'] ?? null;
    if (carriesRange(range, { status, length, contentRange })) return response;
    if (status === 200 || status === 206) {
      // Bytes, but not the range's: not read (it may be a whole large object), not relayed.
      response.destroy();
      const wanted = range.end - range.start + 1;
      throw new Error(
        length !== null && length < wanted
          ? `${objectKey} ends before byte ${range.end}`
          : `${objectKey}: the bucket answered ${status} (${length ?? 'no'} bytes, range ${contentRange ?? 'none'}) for ${range.start}-${range.end}`,
      );
    }
    const body = await this.#body(response);
    if (status === 404 && /<Code>NoSuchKey<\/Code>/.test(body.toString('utf8'))) return null;
    throw new BlobUnavailableError(
      'unreachable',
      `The bucket answered ${status} to a read of ${objectKey}`,
    );
  }

  /** A GET of bytes `range` of `objectKey`: its URL and its signed headers. */
  async #signedGet(
    objectKey: string,
    range: ByteRange,
  ): Promise<{ url: URL; headers: Record<string, string> }> {
    const base = await this.#baseUrl();
    const url = new URL(base);
    url.pathname = `${base.pathname}${encodeKey(objectKey)}`;
    const headers: Record<string, string> = {
      host: url.host,
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    };
    const asked = rangeHeader(range);
    if (asked !== null) headers.range = asked;
    const signed = await this.#signer.sign({
      method: 'GET',
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: url.pathname,
      query: {},
      headers,
    });
    return { url, headers: signed.headers };
  }

  /** The SDK's address of an object, without the key (learnt once, from a presigned URL). */
  #baseUrl(): Promise<URL> {
    this.#base ??= getSignedUrl(
      this.#client,
      new GetObjectCommand({ Bucket: this.#bucket, Key: PROBE_KEY }),
      { expiresIn: 60 },
    ).then((signed) => {
      const url = new URL(signed);
      url.search = '';
      url.pathname = url.pathname.slice(0, -PROBE_KEY.length);
      return url;
    });
    this.#base.catch(() => {
      this.#base = undefined;
    });
    return this.#base;
  }

  #get(url: URL, headers: Record<string, string>): Promise<IncomingMessage> {
    const https = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const request = (https ? httpsRequest : httpRequest)(url, {
        method: 'GET',
        headers,
        agent: https ? this.#agents.https : this.#agents.http,
      });
      request.setTimeout(this.#idleMs, () =>
        request.destroy(new BlobUnavailableError('unreachable', 'The bucket stopped answering')),
      );
      // That timer starts only once the agent gives the request a socket; every one of them
      // may be relaying to a client that never reads on, so the wait for one is bounded too.
      // A request destroyed in the agent's queue says so only once a socket comes: it is
      // given up on here, and the agent drops it then.
      const waiting = setTimeout(() => {
        const error = new BlobUnavailableError(
          'unreachable',
          `None of the ${this.#maxSockets} connections to the bucket came free within ${this.#idleMs} ms`,
        );
        request.destroy(error);
        reject(error);
      }, this.#idleMs);
      request.once('socket', () => clearTimeout(waiting));
      request.on('response', resolve);
      request.on('error', (error) =>
        reject(
          error instanceof BlobUnavailableError
            ? error
            : new BlobUnavailableError('unreachable', 'The bucket is unreachable', {
                cause: error,
              }),
        ),
      );
      request.end();
    });
  }

  async #body(response: IncomingMessage): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  close(): void {
    this.#connections?.close();
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}
