import assert from 'node:assert/strict';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { after, describe, it } from 'node:test';
import {
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { newId } from '../../../src/server/ground/secrets.js';
import {
  BlobNotFoundError,
  BlobUnavailableError,
  type MultipartUpload,
  type RangeSender,
} from '../../../src/server/storage/blob-store.js';
import { S3BlobStore, type S3BlobStoreOptions } from '../../../src/server/storage/s3/s3-store.js';
import { patternBytes } from '../../helpers/bytes.js';
import { rgwAvailable, rgwClient, startRgw, type TestRgw } from '../../helpers/ceph-rgw.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { blobStoreConformance, heldParts } from './blob-store.conformance.js';

// The pinned SDK warns once per process that later versions need Node 22; in a test run
// that is noise (the pin is deliberate, see toolchain notes).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const MiB = 1024 * 1024;
const PAGE_ORIGIN = 'http://page.test:5173';

/** Decided before any test is registered, so a missing RGW marks them skipped, never passed. */
const skip = rgwAvailable()?.skip;

/** One gateway for the whole file, booted by the first test that needs it. */
let booting: Promise<TestRgw> | null = null;
function rgw(): Promise<TestRgw> {
  booting ??= startRgw().then((started) => {
    if ('skip' in started) throw new Error(started.skip);
    return started;
  });
  return booting;
}
after(async () => {
  const started = await booting?.catch(() => null);
  await started?.stop();
});

/** A store on a fresh bucket (CORS open to PAGE_ORIGIN), and a plain client to inspect it. */
async function fixture(options: Partial<S3BlobStoreOptions> = {}) {
  const gateway = await rgw();
  const bucket = await gateway.createBucket(undefined, { corsOrigins: [PAGE_ORIGIN] });
  const store = new S3BlobStore({
    bucket,
    region: gateway.region,
    endpoint: gateway.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: gateway.secretAccessKey },
    ...options,
  });
  const s3 = rgwClient(gateway);
  return {
    gateway,
    bucket,
    store,
    s3,
    /** Upload ids still open under exactly `key`. */
    async openUploads(key: string): Promise<string[]> {
      const listed = await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
      return (listed.Uploads ?? [])
        .filter((upload) => upload.Key === key)
        .map((upload) => upload.UploadId as string);
    },
    async close() {
      await store.close();
      s3.destroy();
    },
  };
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

const withFixture =
  (fn: (fixture: Fixture) => Promise<void>, options: Partial<S3BlobStoreOptions> = {}) =>
  async () => {
    const current = await fixture(options);
    try {
      await current.store.recover();
      await fn(current);
    } finally {
      await current.close();
    }
  };

/** A one-part multipart upload of `body`, its part signed until `expiresAt`. */
async function signedUpload(store: S3BlobStore, body: Buffer, expiresAt = Date.now() + 600_000) {
  const key = newId();
  const contentType = 'text/plain';
  const uploadId = await store.createMultipart(key, {
    size: body.length,
    partSize: 5 * MiB,
    contentType,
  });
  const upload: MultipartUpload = { key, uploadId, contentType };
  const signed = await store.signPart(
    upload,
    { partNumber: 1, offset: 0, size: body.length },
    expiresAt,
  );
  return { key, upload, signed };
}

/**
 * A TCP relay in front of the gateway that keeps every request head that passes (the
 * bytes from the store to the gateway, bodies aside: the tests send only GETs through it).
 */
async function recordingProxy(port: number) {
  let seen = '';
  const proxy = await startTcpProxy({ hostname: '127.0.0.1', port }, () => ({
    fromClient: (chunk) => {
      seen += chunk.toString('latin1');
      return 'pass';
    },
  }));
  return {
    url: `http://127.0.0.1:${proxy.port}`,
    /** The request heads seen since the start or the last `forget`. */
    heads: () => seen.split('\r\n\r\n').filter((head) => head.length > 0),
    forget: () => {
      seen = '';
    },
    close: () => proxy.close(),
  };
}

/** What a sender writes as an answer on a real connection. */
async function sent(sender: RangeSender | null): Promise<Buffer> {
  assert.ok(sender, 'an object that exists');
  const server = createHttpServer((_request, response) => void sender.sendTo(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return Buffer.from(await (await fetch(`http://127.0.0.1:${port}/`)).arrayBuffer());
  } finally {
    server.close();
  }
}

async function* slices(bytes: Uint8Array, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield Buffer.from(bytes.subarray(at, at + size));
}

const elapsedSince = (started: number) => performance.now() - started;

blobStoreConformance(
  'S3 (Ceph RGW)',
  async () => {
    const current = await fixture();
    return { store: current.store, cleanup: () => current.close() };
  },
  { skip },
);

describe('S3BlobStore on Ceph RGW', { skip }, () => {
  it(
    'streams a range of an object by one signed GET (streamRange, the CDN), null for none',
    withFixture(async ({ store }) => {
      const key = newId();
      const bytes = Buffer.from(patternBytes(700_000, 7));
      await store.put(key, Readable.from([bytes]), { contentType: 'application/octet-stream' });
      for (const [start, end] of [
        [0, bytes.length - 1],
        [300_000, 599_999],
        [bytes.length - 1, bytes.length - 1],
      ] as const) {
        const stream = await store.streamRange(key, { start, end });
        assert.ok(stream);
        assert.deepEqual(await buffer(stream), bytes.subarray(start, end + 1));
      }
      assert.equal(await store.streamRange(newId(), { start: 0, end: 9 }), null);
    }),
  );

  it(
    'signs a part URL that a browser-style PUT uses as is, with content-length signed in',
    withFixture(async ({ store }) => {
      const body = Buffer.from('hello part');
      const { upload, signed } = await signedUpload(store, body);
      assert.equal(signed.method, 'PUT');
      assert.equal(signed.partNumber, 1);
      assert.equal(signed.size, body.length);
      assert.deepEqual(signed.headers, {});
      const signedHeaders = new URL(signed.url).searchParams.get('X-Amz-SignedHeaders') ?? '';
      assert.ok(signedHeaders.split(';').includes('content-length'), signedHeaders);

      const response = await fetch(signed.url, {
        method: signed.method,
        headers: signed.headers,
        body,
      });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '', 'the ETag is in the header; the body is empty');
      const etag = response.headers.get('etag');
      assert.match(etag ?? '', /^"[0-9a-f]{32}"$/);
      assert.deepEqual(await heldParts(store, upload), [
        { partNumber: 1, size: body.length, etag },
      ]);
    }),
  );

  it(
    'refuses a part PUT of another size than signed, and does not hold it',
    withFixture(async ({ store }) => {
      const { upload, signed } = await signedUpload(store, Buffer.from('0123456789'));
      for (const body of ['012345678', '0123456789a']) {
        const response = await fetch(signed.url, { method: 'PUT', body });
        assert.equal(response.status, 403);
        assert.match(await response.text(), /<Code>SignatureDoesNotMatch<\/Code>/);
      }
      assert.deepEqual(await store.listParts(upload), []);
    }),
  );

  it(
    'refuses a part URL once it expired',
    withFixture(async ({ store }) => {
      const body = Buffer.from('late part');
      const { upload, signed } = await signedUpload(store, body, Date.now() + 1000);
      assert.equal(new URL(signed.url).searchParams.get('X-Amz-Expires'), '1');
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const response = await fetch(signed.url, { method: 'PUT', body });
      assert.equal(response.status, 403);
      await response.arrayBuffer();
      assert.deepEqual(await store.listParts(upload), []);
    }),
  );

  it(
    "clamps a part URL's lifetime to S3's seven days",
    withFixture(async ({ store }) => {
      const { signed } = await signedUpload(store, Buffer.from('x'), Date.now() + 30 * 86_400_000);
      assert.equal(new URL(signed.url).searchParams.get('X-Amz-Expires'), String(7 * 86_400));
    }),
  );

  it(
    "lets a page on an allowed origin PUT a part and read its ETag (the bucket's CORS)",
    withFixture(async ({ store }) => {
      const body = Buffer.from('cross-origin part');
      const { upload, signed } = await signedUpload(store, body);
      const preflight = await fetch(signed.url, {
        method: 'OPTIONS',
        headers: {
          Origin: PAGE_ORIGIN,
          'Access-Control-Request-Method': 'PUT',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
      await preflight.arrayBuffer();
      assert.equal(preflight.status, 200);
      assert.equal(preflight.headers.get('access-control-allow-origin'), PAGE_ORIGIN);
      assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPUT\b/);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/i);

      const refused = await fetch(signed.url, {
        method: 'OPTIONS',
        headers: { Origin: 'http://other.test', 'Access-Control-Request-Method': 'PUT' },
      });
      await refused.arrayBuffer();
      assert.equal(refused.headers.get('access-control-allow-origin'), null);

      const response = await fetch(signed.url, {
        method: 'PUT',
        headers: { ...signed.headers, Origin: PAGE_ORIGIN },
        body,
      });
      await response.arrayBuffer();
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), PAGE_ORIGIN);
      const exposed = (response.headers.get('access-control-expose-headers') ?? '')
        .split(',')
        .map((name) => name.trim().toLowerCase());
      assert.ok(exposed.includes('etag'), `exposed: ${exposed.join(', ')}`);
      const [held] = await store.listParts(upload);
      assert.equal(held?.etag, response.headers.get('etag'));
    }),
  );

  it(
    'streams a 20 MiB put through a multipart upload and reads it back unchanged',
    withFixture(async ({ store, s3, bucket }) => {
      const key = newId();
      const bytes = patternBytes(20 * MiB + 3);
      const put = await store.put(key, Readable.from(slices(bytes, 64 * 1024)), {
        contentType: 'video/mp4',
      });
      assert.deepEqual(put, { size: bytes.length });
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      assert.equal(head.ContentType, 'video/mp4');
      // A multipart ETag ends in the part count: 8 + 8 + 4 MiB.
      assert.match(head.ETag ?? '', /-3"$/);
      const stream = await store.get(key);
      assert.ok(stream);
      assert.ok((await buffer(stream)).equals(bytes));
    }),
  );

  it(
    'keeps no object and no open multipart upload when the source fails after some parts',
    withFixture(async ({ store, openUploads }) => {
      const key = newId();
      const bytes = patternBytes(18 * MiB);
      async function* failing(): AsyncGenerator<Buffer> {
        yield* slices(bytes, MiB);
        throw new Error('client went away');
      }
      await assert.rejects(
        store.put(key, failing(), { contentType: 'text/plain' }),
        /client went away/,
      );
      assert.equal(await store.head(key), null);
      assert.deepEqual(await openUploads(key), []);
    }),
  );

  it(
    'deletes the object and every open upload of exactly that key',
    withFixture(async ({ store, s3, bucket, openUploads }) => {
      const key = newId();
      await store.put(key, slices(Buffer.from('old bytes'), 4), { contentType: 'text/plain' });
      const uploadId = await store.createMultipart(key, {
        size: 10,
        partSize: 5 * MiB,
        contentType: 'text/plain',
      });
      // What a streamed put leaves when the process dies mid-way.
      const orphan = await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
      // Listing is by prefix: a longer key must be left alone.
      const neighbour = `${key}x`;
      await s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: neighbour }));
      assert.equal((await openUploads(key)).length, 2);
      assert.ok(orphan.UploadId);

      await store.delete(key, uploadId);
      assert.equal(await store.head(key), null);
      assert.deepEqual(await openUploads(key), []);
      assert.equal((await openUploads(neighbour)).length, 1);
      await store.delete(key, uploadId);
    }),
  );

  it(
    'reads ranges: a single byte, a middle, a tail, an end past the object',
    withFixture(async ({ store }) => {
      const key = newId();
      const bytes = Buffer.from('0123456789abcdef');
      await store.put(key, slices(bytes, 5), { contentType: 'text/plain' });
      const read = async (start: number, end: number) => {
        const stream = await store.get(key, { start, end });
        assert.ok(stream);
        return (await buffer(stream)).toString();
      };
      assert.equal(await read(0, 0), '0');
      assert.equal(await read(15, 15), 'f');
      assert.equal(await read(3, 6), '3456');
      assert.equal(await read(12, 15), 'cdef');
      assert.equal(await read(12, 1000), 'cdef');
      assert.equal(await store.get(newId(), { start: 0, end: 0 }), null);
    }),
  );

  it(
    'completes idempotently, and refuses listing or completing an aborted upload',
    withFixture(async ({ store }) => {
      const body = Buffer.from('complete me');
      const { key, upload, signed } = await signedUpload(store, body);
      const response = await fetch(signed.url, { method: 'PUT', body });
      await response.arrayBuffer();
      const etag = response.headers.get('etag') as string;
      await store.completeMultipart(upload, [{ partNumber: 1, etag }]);
      await store.completeMultipart(upload, [{ partNumber: 1, etag }]);
      assert.deepEqual(await store.head(key), { size: body.length });
      // ETags without quotes (as some clients keep them) are the same ETags.
      await store.completeMultipart(upload, [{ partNumber: 1, etag: etag.replaceAll('"', '') }]);

      const aborted = await signedUpload(store, body);
      await store.abortMultipart(aborted.upload);
      await store.abortMultipart(aborted.upload);
      await assert.rejects(store.listParts(aborted.upload), BlobNotFoundError);
      await assert.rejects(
        store.completeMultipart(aborted.upload, [{ partNumber: 1, etag }]),
        BlobNotFoundError,
      );
    }),
  );

  it(
    'lists more parts than one ListParts page holds',
    withFixture(async ({ store, s3, bucket }) => {
      const key = newId();
      const uploadId = await store.createMultipart(key, {
        size: 1002,
        partSize: 1,
        contentType: 'text/plain',
      });
      const upload = { key, uploadId, contentType: 'text/plain' };
      const expiresAt = Date.now() + 600_000;
      const numbers = Array.from({ length: 1002 }, (_, index) => index + 1);
      for (let at = 0; at < numbers.length; at += 32) {
        await Promise.all(
          numbers.slice(at, at + 32).map(async (partNumber) => {
            const signed = await store.signPart(
              upload,
              { partNumber, offset: partNumber - 1, size: 1 },
              expiresAt,
            );
            const response = await fetch(signed.url, { method: 'PUT', body: 'x' });
            await response.arrayBuffer();
            assert.equal(response.status, 200);
          }),
        );
      }
      const firstPage = await s3.send(
        new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }),
      );
      assert.equal(firstPage.IsTruncated, true, 'the listing takes more than one page');
      const parts = await store.listParts(upload);
      assert.deepEqual(
        parts.map((part) => part.partNumber),
        numbers,
      );
      await store.abortMultipart(upload);
    }),
  );

  it('names the setting to fix when the bucket is missing or the keys are wrong', async () => {
    const gateway = await rgw();
    const options = {
      region: gateway.region,
      endpoint: gateway.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: gateway.secretAccessKey },
    };
    const missing = new S3BlobStore({ ...options, bucket: 'no-such-bucket' });
    await assert.rejects(missing.recover(), (error: unknown) => {
      assert.ok(error instanceof Error && !(error instanceof BlobUnavailableError));
      assert.match(error.message, /"no-such-bucket".*no such bucket.*FILEHOST_S3_BUCKET/);
      return true;
    });
    await missing.close();
    const bucket = await gateway.createBucket();
    const wrongKeys = new S3BlobStore({
      ...options,
      bucket,
      credentials: { accessKeyId: gateway.accessKeyId, secretAccessKey: 'not-the-secret' },
    });
    await assert.rejects(wrongKeys.recover(), /access denied.*FILEHOST_S3_SECRET_ACCESS_KEY/);
    await wrongKeys.close();
  });

  it('asks the bucket for a whole object without Range, for part of one with it; the same bytes either way', async () => {
    const gateway = await rgw();
    const proxy = await recordingProxy(Number(new URL(gateway.endpoint).port));
    const current = await fixture({ endpoint: proxy.url });
    try {
      const key = newId();
      const bytes = Buffer.from(patternBytes(200_000, 7));
      await current.s3.send(
        new PutObjectCommand({ Bucket: current.bucket, Key: key, Body: bytes }),
      );
      const gets = () => proxy.heads().filter((head) => head.startsWith('GET '));
      const whole = { start: 0, end: bytes.length - 1, whole: true };
      assert.deepEqual(await current.store.readRange(key, whole), bytes);
      assert.deepEqual(await sent(await current.store.openSender(key, whole)), bytes);
      const asked = gets();
      assert.equal(asked.length, 2, asked.join('\n'));
      for (const head of asked) assert.doesNotMatch(head, /^range:/im, head);
      proxy.forget();
      assert.deepEqual(
        await current.store.readRange(key, { start: 0, end: bytes.length - 1 }),
        bytes,
      );
      assert.deepEqual(
        await sent(await current.store.openSender(key, { start: 10, end: 100_009 })),
        bytes.subarray(10, 100_010),
      );
      const ranged = gets();
      assert.equal(ranged.length, 2, ranged.join('\n'));
      assert.match(ranged[0] ?? '', /^range: bytes=0-199999$/im);
      assert.match(ranged[1] ?? '', /^range: bytes=10-100009$/im);
      // No such object: null, asked whole or not.
      assert.equal(
        await current.store.openSender(newId(), { start: 0, end: 9, whole: true }),
        null,
      );
      assert.equal(await current.store.readRange(newId(), { start: 0, end: 9, whole: true }), null);
    } finally {
      await current.close();
      await proxy.close();
    }
  });

  it('waits for a busy connection to read a range only idleTimeoutMs, then is unreachable', async () => {
    const current = await fixture({ maxSockets: 1, idleTimeoutMs: 1_000 });
    try {
      const key = newId();
      await current.store.put(key, Readable.from([Buffer.from('0123456789')]), {
        contentType: 'text/plain',
      });
      // Read by nobody (a client that never reads on): its one connection stays taken.
      const held = await current.store.streamRange(key, { start: 0, end: 9 });
      assert.ok(held);
      // It used to wait until that connection came free, however long (here until RGW
      // closed it, idle, after 65 s): the socket's timer starts only once one is given.
      await assert.rejects(
        current.store.readRange(key, { start: 0, end: 4 }),
        (error: unknown) =>
          error instanceof BlobUnavailableError && /came free within 1000 ms/.test(error.message),
      );
      held.destroy();
    } finally {
      await current.close();
    }
  });

  it('reads (readRange, streamRange) and sends (openSender) exactly the bytes of a range, or none of them refuses', async () => {
    const gateway = await rgw();
    const proxy = await recordingProxy(Number(new URL(gateway.endpoint).port));
    const current = await fixture({ endpoint: proxy.url });
    try {
      // One past the relay's 256 KiB buffers among them.
      const objects = new Map<number, { key: string; bytes: Buffer }>();
      for (const size of [1, 2, 1000, 300_001]) {
        const key = newId();
        const bytes = Buffer.from(patternBytes(size, size % 251));
        await current.s3.send(
          new PutObjectCommand({ Bucket: current.bucket, Key: key, Body: bytes }),
        );
        objects.set(size, { key, bytes });
      }
      const near = (size: number) =>
        fc.oneof(fc.constantFrom(0, size - 1, size, size + 1), fc.nat(size + 1));
      // A range of an object, its end possibly past the object's, and `whole` as a caller
      // may claim it, rightly or not (a record whose size is not the object's).
      const asked = fc
        .constantFrom(...objects.keys())
        .chain((size) =>
          fc
            .tuple(near(size), near(size), fc.boolean())
            .map(([a, b, whole]) => ({ size, start: Math.min(a, b), end: Math.max(a, b), whole })),
        );
      const outcome = async (reading: () => Promise<Buffer>) =>
        reading().then(
          (bytes) => ({ bytes }),
          (error: unknown) => ({ error }),
        );
      await fc.assert(
        fc.asyncProperty(asked, async ({ size, start, end, whole }) => {
          const { key, bytes } = objects.get(size) as { key: string; bytes: Buffer };
          const range = { start, end, whole };
          const theRange = end < size && (!whole || (start === 0 && end === size - 1));
          proxy.forget();
          const read = await outcome(async () => {
            const got = await current.store.readRange(key, range);
            assert.ok(got);
            return got;
          });
          const streamed = await outcome(async () => {
            const stream = await current.store.streamRange(key, range);
            assert.ok(stream);
            return buffer(stream);
          });
          const readGets = proxy.heads().filter((head) => head.startsWith('GET ')).length;
          proxy.forget();
          const sentBytes = await outcome(async () =>
            sent(await current.store.openSender(key, range)),
          );
          const sendGets = proxy.heads().filter((head) => head.startsWith('GET ')).length;
          const slice = bytes.subarray(start, end + 1);
          for (const [how, result] of [
            ['read', read],
            ['streamed', streamed],
            ['sent', sentBytes],
          ] as const) {
            if (theRange) assert.deepEqual(result, { bytes: slice }, how);
            else assert.ok('error' in result, `${how}: ${JSON.stringify(result).slice(0, 80)}`);
          }
          assert.equal(readGets, 2);
          // The kept-alive path relays what the other path would accept, and nothing else:
          // a refused answer is asked again through node:http (which refuses it too).
          assert.equal(sendGets, theRange ? 1 : 2);
        }),
        { numRuns: 60 },
      );
    } finally {
      await current.close();
      await proxy.close();
    }
  });

  it(
    'puts objects under the key prefix',
    withFixture(
      async ({ store, s3, bucket }) => {
        const key = newId();
        await store.put(key, slices(Buffer.from('prefixed'), 8), { contentType: 'text/plain' });
        const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: `files/${key}` }));
        assert.equal(head.ContentLength, 8);
        assert.deepEqual(await store.head(key), { size: 8 });
        const { signed } = await signedUpload(store, Buffer.from('x'));
        assert.match(new URL(signed.url).pathname, /\/files\//);
      },
      { keyPrefix: 'files/' },
    ),
  );

  it(
    'reports a bucket over its quota as full',
    withFixture(async ({ store, gateway, bucket }) => {
      await gateway.setBucketQuota(bucket, 1024);
      await assert.rejects(
        store.put(newId(), slices(patternBytes(64 * 1024), 16 * 1024), {
          contentType: 'application/octet-stream',
        }),
        (error: unknown) => error instanceof BlobUnavailableError && error.reason === 'full',
      );
    }),
  );

  it(
    'keeps a download open for a reader that pauses longer than the idle timeout',
    // A regression here would hang, not fail.
    { timeout: 15_000 },
    withFixture(
      async ({ store }) => {
        const key = newId();
        const bytes = patternBytes(16 * MiB);
        await store.put(key, slices(bytes, MiB), { contentType: 'application/octet-stream' });
        const stream = await store.get(key);
        assert.ok(stream);
        const chunks: Buffer[] = [];
        const iterator = stream[Symbol.asyncIterator]();
        const first = await iterator.next();
        chunks.push(first.value as Buffer);
        // The reader holds back (socket buffers fill, the store goes quiet) for 2.5 timeouts.
        await new Promise((resolve) => setTimeout(resolve, 2500));
        for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
          chunks.push(next.value as Buffer);
        }
        assert.ok(Buffer.concat(chunks).equals(bytes));
      },
      { idleTimeoutMs: 1000 },
    ),
  );

  it(
    'fails a download whose store stops sending, within the idle timeout',
    // A regression here would hang, not fail.
    { timeout: 15_000 },
    withFixture(
      async ({ store, gateway }) => {
        const key = newId();
        const bytes = patternBytes(16 * MiB);
        await store.put(key, slices(bytes, MiB), { contentType: 'application/octet-stream' });
        const stream = await store.get(key);
        assert.ok(stream);
        const iterator = stream[Symbol.asyncIterator]();
        await iterator.next();
        const thaw = gateway.freeze();
        const started = performance.now();
        try {
          await assert.rejects(
            (async () => {
              for (let next = await iterator.next(); !next.done; next = await iterator.next()) {}
            })(),
            (error: unknown) =>
              error instanceof BlobUnavailableError && error.reason === 'unreachable',
          );
        } finally {
          thaw();
        }
        assert.ok(elapsedSince(started) < 3000, `took ${elapsedSince(started)} ms`);
      },
      { idleTimeoutMs: 1000 },
    ),
  );

  it(
    'answers BlobUnavailableError, not a hang, when the store does not answer',
    // A regression here would hang, not fail.
    { timeout: 15_000 },
    withFixture(
      async ({ store, gateway }) => {
        const thaw = gateway.freeze();
        const started = performance.now();
        try {
          await assert.rejects(
            store.head(newId()),
            (error: unknown) =>
              error instanceof BlobUnavailableError && error.reason === 'unreachable',
          );
        } finally {
          thaw();
        }
        // Two attempts of one idle timeout each, plus the retry's backoff.
        assert.ok(elapsedSince(started) < 4000, `took ${elapsedSince(started)} ms`);
      },
      { idleTimeoutMs: 1000 },
    ),
  );
});

describe('S3BlobStore without a store', () => {
  it('answers BlobUnavailableError within seconds where nothing listens', async () => {
    // A port that was free a moment ago: connections to it are refused.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const store = new S3BlobStore({
      bucket: 'filehost',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    try {
      const started = performance.now();
      const unreachable = (error: unknown) =>
        error instanceof BlobUnavailableError && error.reason === 'unreachable';
      await assert.rejects(store.head('some-id'), unreachable);
      await assert.rejects(store.get('some-id'), unreachable);
      await assert.rejects(
        store.put('some-id', slices(Buffer.from('bytes'), 5), { contentType: 'text/plain' }),
        unreachable,
      );
      await assert.rejects(store.recover(), (error: unknown) => {
        assert.ok(error instanceof BlobUnavailableError);
        assert.match(error.message, /FILEHOST_S3_BUCKET/);
        assert.match(error.message, /FILEHOST_S3_ENDPOINT/);
        assert.match(error.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
        return true;
      });
      assert.ok(elapsedSince(started) < 5000, `took ${elapsedSince(started)} ms`);
    } finally {
      await store.close();
    }
  });

  it('answers BlobUnavailableError when the store accepts connections but never answers', async () => {
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const store = new S3BlobStore({
      bucket: 'filehost',
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      idleTimeoutMs: 500,
    });
    try {
      const started = performance.now();
      await assert.rejects(
        store.get('some-id'),
        (error: unknown) => error instanceof BlobUnavailableError && error.reason === 'unreachable',
      );
      assert.ok(elapsedSince(started) < 3000, `took ${elapsedSince(started)} ms`);
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('names the option it refuses', () => {
    assert.throws(() => new S3BlobStore({ bucket: '', region: 'us-east-1' }), /`bucket`/);
    assert.throws(() => new S3BlobStore({ bucket: 'b', region: '' }), /`region`/);
    assert.throws(
      () => new S3BlobStore({ bucket: 'b', region: 'us-east-1', endpoint: 'not a url' }),
      /`endpoint`/,
    );
    assert.throws(
      () => new S3BlobStore({ bucket: 'b', region: 'us-east-1', putPartSize: MiB }),
      /`putPartSize`/,
    );
  });
});
