// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SignRequest } from '../../src/api/types.js';
import { places } from '../../src/client/concurrency-limit.js';
import { ApiError, FilehostClient, type RememberedUpload } from '../../src/client/index.js';
import { runSequence, UploadSequence } from '../../src/client/upload-sequence.js';
import { patternBytes, startTestService, type TestService } from '../helpers/service.js';

interface Call {
  method: string;
  path: string;
  body: unknown;
}

const MiB = 1024 * 1024;

/**
 * The one upload sequence of both uploaders (resume or sign, batched; complete, batched;
 * the pending cap), imported directly and through `uploadFile` / `uploadFiles`, against a
 * real service.
 */
describe('UploadSequence: the upload sequence of both uploaders', () => {
  let t: TestService;
  before(async () => {
    // Parts of 5 MiB, so that 11 MiB is three of them (5, 5 and 1).
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
  });
  after(() => t.close());

  /** A client whose every call is recorded (the path, and the JSON body). */
  function recordingClient(): { client: FilehostClient; calls: Call[] } {
    const calls: Call[] = [];
    const client = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: (input, init) => {
        calls.push({
          method: init?.method ?? 'GET',
          path: new URL(String(input)).pathname,
          body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
        });
        return fetch(input, init);
      },
    });
    return { client, calls };
  }
  const callsTo = (calls: Call[], path: string) =>
    calls.filter((call) => call.method === 'POST' && call.path === path);
  const source = (name: string, bytes: Uint8Array) => ({
    name,
    size: bytes.length,
    slice: (start: number, end: number) => new Blob([bytes.slice(start, end)]),
    fingerprint: async () => `${name}:${bytes.length}`,
  });

  it('uploadFile: several at once are signed in one call and completed by the batch call', async () => {
    const { client, calls } = recordingClient();
    const files = [1, 2, 3].map((seed) => source(`f${seed}.bin`, patternBytes(1000 * seed, seed)));
    const records = await Promise.all(files.map((file) => client.uploadFile(file)));
    assert.deepEqual(
      records.map((record) => [record.name, record.size, record.status]),
      [
        ['f1.bin', 1000, 'ready'],
        ['f2.bin', 2000, 'ready'],
        ['f3.bin', 3000, 'ready'],
      ],
    );
    const signs = callsTo(calls, '/v1/uploads/sign');
    assert.equal(signs.length, 1, 'one sign call');
    assert.equal((signs[0]?.body as { files?: unknown[] } | undefined)?.files?.length, 3);
    // Signed together: completed by the batch call (together, or alone as each lands).
    const completes = calls.filter((call) => call.path.endsWith('/complete'));
    assert.ok(completes.length >= 1 && completes.length <= 3);
    for (const call of completes) assert.equal(call.path, '/v1/uploads/complete');
  });

  it('uploadFiles: resumes a remembered upload, sending only the parts the service lacks', async () => {
    const bytes = patternBytes(11 * MiB, 5);
    const file = source('resumed.bin', bytes);
    const store = new Map<string, RememberedUpload>();
    const resume = {
      get: async (key: string) => store.get(key),
      set: async (key: string, upload: RememberedUpload) => void store.set(key, upload),
      delete: async (key: string) => void store.delete(key),
    };
    // An upload cut off after its first part, remembered as uploadFile remembers one.
    const first = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    const signed = await first.sign({ name: 'resumed.bin', size: bytes.length });
    const [part] = signed.parts;
    assert.ok(part);
    await first.uploadPart(part, new Blob([bytes.slice(0, part.size)]));
    store.set(`${t.apiUrl} ${await file.fingerprint()}`, { id: signed.id, token: null });

    const { client, calls } = recordingClient();
    const [result] = await client.uploadFiles([file], { resume });
    assert.equal(result?.file?.id, signed.id, 'the same upload, completed');
    assert.equal(result?.file?.size, bytes.length);
    assert.equal(calls.filter((call) => call.method === 'PUT').length, 2, 'parts 2 and 3 only');
    assert.equal(callsTo(calls, '/v1/uploads/sign').length, 0, 'nothing signed anew');
    assert.equal(store.size, 0, 'forgotten once complete');
  });

  it('prepare: a known upload the service forgot is heard of, then signed anew; a named one stops there', async () => {
    const { client } = recordingClient();
    const sequence = new UploadSequence(client);
    const request = (): SignRequest => ({ name: 'n.bin', size: 10 });
    const unknown = { id: 'AAAAAAAAAAAAAAAAAAAAAA', token: null };
    const heard: string[] = [];
    const prepared = await sequence.prepare({
      request,
      known: unknown,
      forgotten: (error) => void heard.push(error.code),
    });
    assert.deepEqual(heard, ['not_found']);
    assert.equal(prepared.state, null);
    assert.notEqual(prepared.plan.uploadId, unknown.id);
    await assert.rejects(
      sequence.prepare({
        request,
        known: unknown,
        forgotten: (error) => {
          throw error;
        },
      }),
      (error: unknown) => error instanceof ApiError && error.code === 'not_found',
    );
  });

  it('holds at most its cap of uploads signed and not finished: the next is signed as one completes', async () => {
    const { client, calls } = recordingClient();
    const sequence = new UploadSequence(client, { pending: places(1) });
    const order: string[] = [];
    const upload = (name: string) =>
      runSequence(sequence, { request: () => ({ name, size: 4 }) }, async (plan) => {
        order.push(`send ${name} after ${callsTo(calls, '/v1/uploads/sign').length} signs`);
        const [only] = plan.parts;
        assert.ok(only);
        await client.uploadPart(only, new Blob([new Uint8Array([1, 2, 3, 4])]));
      });
    const records = await Promise.all([upload('one.bin'), upload('two.bin')]);
    assert.deepEqual(
      records.map((record) => record.name),
      ['one.bin', 'two.bin'],
    );
    // The second is signed only once the first has completed: never two pending at once.
    assert.deepEqual(order, ['send one.bin after 1 signs', 'send two.bin after 2 signs']);
    const paths = calls.filter((call) => call.method === 'POST').map((call) => call.path);
    assert.ok(
      paths[1]?.startsWith('/v1/uploads/') && paths[1] !== '/v1/uploads/sign',
      paths.join(),
    );
  });
});
