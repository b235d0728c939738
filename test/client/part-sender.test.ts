// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHECKSUM_HEADER } from '../../src/api/checksum.js';
import { MIN_PART_SIZE } from '../../src/api/limits.js';
import { concurrencyLimit } from '../../src/client/concurrency-limit.js';
import { ApiError, FilehostClient } from '../../src/client/index.js';
import { digestHeaders } from '../../src/client/part-digest.js';
import {
  type PartRequest,
  type PartSending,
  retryTransientParts,
  sendParts,
} from '../../src/client/part-sender.js';
import {
  claimedParts,
  planFromSign,
  planFromState,
  type UploadPlan,
} from '../../src/client/upload-plan.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { assertSameBytes, patternBytes, startTestService } from '../helpers/service.js';

type Bytes = Uint8Array<ArrayBuffer>;

/** Parts of the smallest size S3 takes, so that a file of three is small. */
const SMALL_PARTS = { FILEHOST_PART_SIZE: String(MIN_PART_SIZE) };
/** Three parts: two of the smallest part size and a short last one. */
const SIZE = 2 * MIN_PART_SIZE + 1000;

/**
 * `sendParts`, the part sender the typed client and `<file-uploader>` both call (each with
 * its own transport: fetch, Uppy's XHR), against a real service: which parts go, with what,
 * how often, and when it stops. The transport here is the typed client's part PUT, wrapped
 * to record or disturb each request.
 */
describe('sendParts: the one part sender of both uploaders', () => {
  let t: Awaited<ReturnType<typeof startTestService>>;
  let client: FilehostClient;
  const bytes = patternBytes(SIZE, 7);
  before(async () => {
    t = await startTestService(SMALL_PARTS);
    client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
  });
  after(() => t.close());

  /** The typed client's part PUT as a transport. */
  const put = (on: FilehostClient) => (request: PartRequest<Bytes>) => {
    const { body, signal, onProgress: _, ...part } = request;
    return on.uploadPart(part, body, { signal }).then((answer) => answer.etag);
  };

  function sendingOf(
    plan: UploadPlan,
    over: Partial<PartSending<Bytes>> = {},
    on = client,
  ): PartSending<Bytes> & { bytes: Map<number, number> } {
    const sent = new Map<number, number>();
    return {
      transport: put(on),
      digest: digestHeaders,
      read: (start, end) => bytes.subarray(start, end),
      uploadState: (signal) => on.getUpload(plan.uploadId, { signal }),
      limit: concurrencyLimit(2),
      retry: retryTransientParts({ retries: 3, baseDelayMs: 1 }),
      onBytes: (partNumber, count) => sent.set(partNumber, count),
      bytes: sent,
      ...over,
    };
  }

  async function complete(plan: UploadPlan, on = client): Promise<void> {
    const record = await on.complete(plan.uploadId, { parts: claimedParts(plan) });
    assert.equal(record.status, 'ready');
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  }

  it('sends only the parts the service does not hold, each with its digest, and counts each part', async () => {
    const signed = await client.sign({ name: 'three.bin', size: SIZE, checksum: true });
    const first = planFromSign(signed);
    assert.equal(first.parts.length, 3);
    assert.ok(first.checksum);
    // Part 1 landed before (an earlier run); the plan of the resume says so.
    const [one] = first.parts;
    assert.ok(one);
    const oneBytes = bytes.subarray(0, one.size);
    await client.uploadPart(
      { ...one, headers: { ...one.headers, ...(await digestHeaders(first.checksum, oneBytes)) } },
      oneBytes,
    );
    const resumed = planFromState(await client.getUpload(first.uploadId), null);
    assert.deepEqual(
      resumed.parts.map((part) => part.etag !== null),
      [true, false, false],
    );
    const requests: PartRequest<Bytes>[] = [];
    const sending = sendingOf(resumed, {
      transport: (request) => {
        requests.push(request);
        return put(client)(request);
      },
    });
    await sendParts(resumed, sending);
    assert.deepEqual(requests.map((request) => request.partNumber).sort(), [2, 3]);
    for (const request of requests) {
      assert.ok(request.headers[CHECKSUM_HEADER[first.checksum]], 'each PUT carries its digest');
    }
    // Every part counts its whole size once held: the held one from the start.
    assert.deepEqual(
      [...sending.bytes].sort(([a], [b]) => a - b),
      resumed.parts.map((part) => [part.partNumber, part.size]),
    );
    await complete(resumed);
  });

  it('sends a part damaged on the way again, hashed once', async () => {
    const plan = planFromSign(await client.sign({ name: 'dmg.bin', size: SIZE, checksum: true }));
    let damaged = false;
    let hashed = 0;
    const tries: number[] = [];
    await sendParts(
      plan,
      sendingOf(plan, {
        digest: (algorithm, body) => {
          hashed++;
          return digestHeaders(algorithm, body);
        },
        transport: (request) => {
          tries.push(request.partNumber);
          if (request.partNumber !== 2 || damaged) return put(client)(request);
          damaged = true;
          const body = request.body.slice();
          body[10] = (body[10] ?? 0) ^ 0xff;
          return put(client)({ ...request, body });
        },
      }),
    );
    assert.deepEqual(
      tries.sort(),
      [1, 2, 2, 3],
      'part 2 refused as damaged, sent again; the others once',
    );
    assert.equal(hashed, 3, 'one digest per part');
    await complete(plan);
  });

  it("with <file-uploader>'s policy (no tries of its own), a damaged part fails the file, and the file's retry sends it alone", async () => {
    const plan = planFromSign(await client.sign({ name: 'elem.bin', size: SIZE, checksum: true }));
    const tries: number[] = [];
    let damaged = false;
    const element = sendingOf(plan, {
      // The element's: Uppy's fetcher retries each PUT itself; the part sender none.
      retry: (attempt) => attempt(),
      // All three on their way at once, as the element's 4 slots would have them.
      limit: concurrencyLimit(3),
      transport: (request) => {
        tries.push(request.partNumber);
        if (request.partNumber !== 2 || damaged) return put(client)(request);
        damaged = true;
        const body = request.body.slice();
        body[0] = (body[0] ?? 0) ^ 0xff;
        return put(client)({ ...request, body });
      },
    });
    const error = await sendParts(plan, element).catch((caught: unknown) => caught);
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'checksum_mismatch');
    assert.deepEqual(
      plan.parts.map((part) => part.etag !== null),
      [true, false, true],
      'the parts on their way landed',
    );
    // The file's retry (the engine's, at once for checksum_mismatch) resumes the same plan.
    await sendParts(plan, element);
    assert.deepEqual(tries.sort(), [1, 2, 2, 3]);
    await complete(plan);
  });

  it('asks for fresh URLs once when a part URL has expired, and sends that part to them', async () => {
    // The first part waits past its URL's life (S3 counts it from its signing second); the
    // fresh URLs then have the same life for the three parts, which a loaded machine's
    // bucket can take seconds to take in: with 2 s, CI's fresh URLs expired too (asked 2).
    const short = await startTestService({ ...SMALL_PARTS, FILEHOST_UPLOAD_URL_TTL: '8' });
    try {
      const on = new FilehostClient({ endpoint: short.apiUrl, apiKey: short.secretKey });
      const plan = planFromSign(await on.sign({ name: 'late.bin', size: SIZE }));
      let asked = 0;
      let delayed = false;
      const sending = sendingOf(
        plan,
        {
          limit: concurrencyLimit(1),
          uploadState: (signal) => {
            asked++;
            return on.getUpload(plan.uploadId, { signal });
          },
          transport: async (request) => {
            if (!delayed) {
              delayed = true;
              await new Promise((resolve) => setTimeout(resolve, 8200));
            }
            return put(on)(request);
          },
        },
        on,
      );
      await sendParts(plan, sending);
      assert.equal(asked, 1, 'fresh URLs once, for every part left');
      await complete(plan, on);
    } finally {
      await short.close();
    }
  });

  it('fails the file with the first refusal, and sends none of the parts not yet started', async () => {
    const plan = planFromSign(await client.sign({ name: 'no.bin', size: SIZE }));
    const tries: number[] = [];
    const refusal = new ApiError(400, 'invalid_request', 'refused');
    const error = await sendParts(
      plan,
      sendingOf(plan, {
        limit: concurrencyLimit(1),
        transport: async (request) => {
          tries.push(request.partNumber);
          throw refusal;
        },
      }),
    ).catch((caught: unknown) => caught);
    assert.equal(error, refusal);
    assert.deepEqual(tries, [1], 'not retried (final), and parts 2 and 3 never sent');
  });

  it('stops when its signal aborts: nothing more is sent, and it rejects with the reason', async () => {
    const plan = planFromSign(await client.sign({ name: 'stop.bin', size: SIZE }));
    const stop = new AbortController();
    const tries: number[] = [];
    const error = await sendParts(
      plan,
      sendingOf(plan, {
        limit: concurrencyLimit(1),
        signal: stop.signal,
        transport: async (request) => {
          tries.push(request.partNumber);
          const etag = await put(client)(request);
          stop.abort(new Error('paused'));
          return etag;
        },
      }),
    ).catch((caught: unknown) => caught);
    assert.equal((error as Error).message, 'paused');
    assert.deepEqual(tries, [1]);
    assert.equal(plan.parts[0]?.etag !== null, true, 'the part on its way landed and counts');
  });
});
