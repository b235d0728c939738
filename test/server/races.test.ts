// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FileRecord, SignResponse } from '../../src/api/types.js';
import { SCALE } from '../helpers/scale-mode.js';
import {
  assertSameBytes,
  expectError,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;
const PART = 5 * MiB;
type SignedPart = SignResponse['parts'][number];

interface Answer {
  status: number;
  etag: string | null;
  body: string;
}

/**
 * A part PUT whose body is held open half-way: the first half is sent at once, the rest
 * only when `finish` is called, so another request can really run while this one is
 * in the middle of its bytes. `cut` drops the connection instead.
 */
function heldPut(part: SignedPart, bytes: Uint8Array) {
  const half = Math.floor(bytes.length / 2);
  let request!: ReturnType<typeof httpRequest>;
  const answer = new Promise<Answer>((resolve) => {
    request = httpRequest(
      part.url,
      {
        method: part.method,
        headers: { ...part.headers, 'Content-Length': String(bytes.length) },
      },
      (response) =>
        readAll(response).then((body) =>
          resolve({
            status: response.statusCode ?? 0,
            etag: (response.headers.etag as string | undefined) ?? null,
            body: body.toString('utf8'),
          }),
        ),
    );
    // A store may answer before reading all of the body, or drop the connection.
    request.on('error', () => resolve({ status: 0, etag: null, body: 'connection closed' }));
  });
  request.write(bytes.subarray(0, half));
  return {
    answer,
    /** Sends the rest of the body and waits for the answer. */
    async finish(): Promise<Answer> {
      request.end(bytes.subarray(half));
      return answer;
    },
  };
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
    stream.on('aborted', () => reject(new Error('aborted')));
  });
}

/** Long enough for the first half of a held body to have reached the store. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

/** The promise's value, or a failure naming what hung (a held body must not stall others). */
async function withinSeconds<T>(seconds: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} waited ${seconds} s for a held request`)),
      seconds * 1000,
    );
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** Never a 5xx: a race may be lost with a 4xx (or a dropped connection), never with a fault. */
function assertNoFault(answer: Answer, what: string): void {
  assert.ok(answer.status < 500, `${what} answered ${answer.status}: ${answer.body}`);
}

describe('races: overlapping requests never give a 5xx, mixed bytes or a kept half', {
  timeout: 180_000,
}, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(PART) });
  });
  after(() => t.close());

  async function sign(size: number): Promise<SignResponse> {
    return json<SignResponse>(await t.sign({ name: 'race.bin', size }), 201);
  }

  const complete = (id: string, parts?: { partNumber: number; etag: string }[]) =>
    t.complete(id, parts ? { parts } : undefined);

  /** What the store holds of one upload (the service is shared by the tests of this file). */
  const storedOf = async (id: string) => (await t.stored()).filter((path) => path.includes(id));

  const put = (part: SignedPart, bytes: Uint8Array<ArrayBuffer>) =>
    fetch(part.url, { method: part.method, headers: part.headers, body: bytes });

  async function served(id: string): Promise<ArrayBuffer> {
    const response = await fetch(`${t.cdnUrl}/${id}`);
    assert.equal(response.status, 200);
    return response.arrayBuffer();
  }

  it('two PUTs of the same part: the one acknowledged last is what the file holds', async () => {
    const signed = await sign(PART);
    const part = signed.parts[0] as SignedPart;
    const first = patternBytes(PART, 1);
    const second = patternBytes(PART, 2);

    // The first is half-way through its body when the second arrives and finishes.
    const slow = heldPut(part, first);
    await settle();
    // The stalled first write must not hold the second up (it did, until the idle timeout).
    const fast = await withinSeconds(10, put(part, second), 'the second PUT');
    const fastAnswer: Answer = {
      status: fast.status,
      etag: fast.headers.get('etag'),
      body: await fast.text(),
    };
    const slowAnswer = await slow.finish();
    assertNoFault(fastAnswer, 'the second PUT');
    assertNoFault(slowAnswer, 'the first PUT');
    assert.equal(fastAnswer.status, 200, fastAnswer.body);

    // Whichever was acknowledged last is the part; completing with its ETag serves it.
    const winner = slowAnswer.status === 200 ? slowAnswer : fastAnswer;
    const winnerBytes = winner === slowAnswer ? first : second;
    const record = await json<FileRecord>(
      await complete(signed.id, [{ partNumber: 1, etag: winner.etag as string }]),
    );
    assert.equal(record.status, 'ready');
    assertSameBytes(await served(signed.id), winnerBytes);
  });

  it('two PUTs of the same part both held open: the later acknowledged wins', async () => {
    const signed = await sign(PART);
    const part = signed.parts[0] as SignedPart;
    const first = patternBytes(PART, 3);
    const second = patternBytes(PART, 4);
    const a = heldPut(part, first);
    await settle();
    const b = heldPut(part, second);
    await settle();
    const answerA = await a.finish();
    const answerB = await b.finish();
    assertNoFault(answerA, 'the first PUT');
    assertNoFault(answerB, 'the second PUT');
    const acknowledged = [answerA, answerB].filter((answer) => answer.status === 200);
    assert.ok(acknowledged.length > 0, 'at least one of them is kept');
    // Completing without a parts list takes what the store holds: it must be exactly the
    // bytes of one acknowledged PUT, never a mix of the two.
    const record = await json<FileRecord>(await complete(signed.id));
    assert.equal(record.size, PART);
    const bytes = new Uint8Array(await served(signed.id));
    const matches = [
      answerA.status === 200 && Buffer.from(bytes).equals(Buffer.from(first)),
      answerB.status === 200 && Buffer.from(bytes).equals(Buffer.from(second)),
    ];
    assert.ok(matches.some(Boolean), 'the file is exactly one acknowledged PUT');
  });

  it('a PUT racing DELETE: after the delete the PUT is refused and nothing is kept', async () => {
    const signed = await sign(2 * PART);
    const [one, two] = signed.parts as [SignedPart, SignedPart];
    assert.equal((await put(one, patternBytes(PART, 5))).status, 200);
    const slow = heldPut(two, patternBytes(PART, 6));
    await settle();
    const deleted = await withinSeconds(
      10,
      t.api(`/v1/files/${signed.id}`, { method: 'DELETE' }),
      'the DELETE',
    );
    assert.equal(deleted.status, 204);
    const answer = await slow.finish();
    assertNoFault(answer, 'the PUT');
    assert.notEqual(answer.status, 200, 'a part of a deleted upload is not accepted');
    // decisions.md: after the delete, the PUT answers 404 (S3 in its own words at scale).
    assert.equal(answer.status, 404, answer.body);
    if (!SCALE) assert.equal(JSON.parse(answer.body).error.code, 'not_found');
    // And a PUT that starts after the delete: the id is gone for it too.
    const late = await put(one, patternBytes(PART, 7));
    assert.equal(late.status, 404, await late.text());
    await expectError(await complete(signed.id), 404, 'not_found');
    await expectError(await fetch(`${t.cdnUrl}/${signed.id}`), 404, 'not_found');
    assert.deepEqual(await storedOf(signed.id), []);
  });

  it('a PUT racing complete: the ready file is exactly the acknowledged bytes', async () => {
    const signed = await sign(PART);
    const part = signed.parts[0] as SignedPart;
    const kept = patternBytes(PART, 8);
    const first = await put(part, kept);
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag') as string;

    // A re-send of the part is half-way through when complete arrives with the first
    // part's ETag.
    const resend = heldPut(part, patternBytes(PART, 9));
    await settle();
    const completing = complete(signed.id, [{ partNumber: 1, etag }]);
    // The completion may wait for the part in flight; let that part go on.
    await settle();
    const resent = await resend.finish();
    const completed = await completing;
    assertNoFault(resent, 'the re-sent part');
    assert.ok(completed.status < 500, `complete answered ${completed.status}`);

    if (completed.status === 200) {
      // Complete named the first part's ETag, so the file is that part's bytes; if the
      // re-send replaced it first, complete must have refused instead.
      assertSameBytes(await served(signed.id), kept);
    } else {
      await expectError(completed, 409, 'upload_incomplete');
      // The re-send won; completing with its ETag serves its bytes.
      assert.equal(resent.status, 200, resent.body);
      await json<FileRecord>(
        await complete(signed.id, [{ partNumber: 1, etag: resent.etag as string }]),
      );
      assertSameBytes(await served(signed.id), patternBytes(PART, 9));
    }
  });

  it('five completes at once: all answer the same ready record', async () => {
    const size = 3 * PART;
    const bytes = patternBytes(size, 10);
    const signed = await sign(size);
    await Promise.all(
      signed.parts.map(async (part) => {
        const start = (part.partNumber - 1) * PART;
        const response = await put(part, bytes.subarray(start, start + part.size));
        assert.equal(response.status, 200);
      }),
    );
    const answers = await Promise.all(Array.from({ length: 5 }, () => complete(signed.id)));
    const records = await Promise.all(answers.map((answer) => json<FileRecord>(answer)));
    for (const record of records) assert.deepEqual(record, records[0]);
    assert.equal(records[0]?.status, 'ready');
    assertSameBytes(await served(signed.id), bytes);
  });

  it('a DELETE racing a CDN read: the read is whole or cut, then the file is gone', async () => {
    const size = 24 * MiB;
    const bytes = patternBytes(size, 11);
    const uploaded = await json<FileRecord>(
      await t.api('/v1/upload', {
        method: 'POST',
        headers: { 'X-Filename': 'big.bin' },
        body: bytes,
      }),
      201,
    );
    // A reader that takes the first chunk and then stops reading (the socket's buffers
    // fill, the server's stream is held back) while the file is deleted.
    const reading = await new Promise<IncomingMessage>((resolve, reject) => {
      httpRequest(`${t.cdnUrl}/${uploaded.id}`, resolve).on('error', reject).end();
    });
    assert.equal(reading.statusCode, 200);
    const chunks: Buffer[] = [];
    const firstChunk = await new Promise<Buffer>((resolve) => reading.once('data', resolve));
    chunks.push(firstChunk);
    reading.pause();

    assert.equal((await t.api(`/v1/files/${uploaded.id}`, { method: 'DELETE' })).status, 204);
    await expectError(await fetch(`${t.cdnUrl}/${uploaded.id}`), 404, 'not_found');

    reading.resume();
    const rest = await readAll(reading).then(
      (body) => ({ whole: true, body }),
      () => ({ whole: false, body: Buffer.alloc(0) }),
    );
    if (rest.whole) {
      // Whole means every byte, exactly: a body cut short would have failed the read.
      chunks.push(rest.body);
      assertSameBytes(Buffer.concat(chunks).buffer.slice(0) as ArrayBuffer, bytes);
    }
    // The bytes go once the read is over (local: at once; a sweep finishes at scale).
    const deadline = Date.now() + 15_000;
    while ((await storedOf(uploaded.id)).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.deepEqual(await storedOf(uploaded.id), []);
  });
});
