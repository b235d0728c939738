// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiError, FilehostApi } from '../../src/client/index.js';
import { UploadSession } from '../../src/client/upload-session.js';
import {
  ALLOWED_ORIGIN,
  partAccepted,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

interface Call {
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
}

/**
 * The sign and complete steps that the typed client and `<file-uploader>` share, against a
 * real service: what goes out together, what goes alone, and that each file gets its own
 * outcome.
 */
describe('UploadSession: sign and complete, batched', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  /** A session on the page's publishable key, with every API call it makes recorded. */
  function pageSession(): { session: UploadSession; calls: Call[] } {
    const calls: Call[] = [];
    const api = new FilehostApi({
      endpoint: t.apiUrl,
      apiKey: t.publishableKey,
      fetch: async (input, init) => {
        const headers = { ...(init?.headers as Record<string, string>), Origin: ALLOWED_ORIGIN };
        calls.push({
          method: init?.method ?? 'GET',
          path: new URL(String(input)).pathname,
          body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
          headers,
        });
        return fetch(input, { ...init, headers });
      },
    });
    return { session: new UploadSession(api), calls };
  }
  const signCalls = (calls: Call[]) =>
    calls.filter((call) => call.path === '/v1/uploads/sign').map((call) => call.body);

  it('signs a burst in growing batch calls (8, then the rest), each file its own answer', async () => {
    const { session, calls } = pageSession();
    const names = Array.from({ length: 20 }, (_, index) => `f${index}.bin`);
    const answers = await Promise.all(
      names.map((name, index) => session.sign({ name, size: 10 + index })),
    );
    assert.deepEqual(
      signCalls(calls).map((body) => (body as { files: unknown[] }).files.length),
      [8, 12],
    );
    for (const [index, { signed, together }] of answers.entries()) {
      assert.equal(together, true);
      assert.equal(signed.parts[0]?.size, 10 + index, 'in the order asked');
      assert.ok(signed.uploadToken);
    }
  });

  it('signs a lone file by the single call', async () => {
    const { session, calls } = pageSession();
    const { signed, together } = await session.sign({ name: 'one.bin', size: 5 });
    assert.equal(together, false);
    assert.deepEqual(signCalls(calls), [{ name: 'one.bin', size: 5 }]);
    assert.equal(signed.parts.length, 1);
  });

  it('fails only the refused file of a batch, with the error a single sign gives it', async () => {
    const { session, calls } = pageSession();
    const sizes = [3, 0, 4, 5];
    const outcomes = await Promise.allSettled(
      sizes.map((size, index) => session.sign({ name: `s${index}`, size })),
    );
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const refused = (outcomes[1] as PromiseRejectedResult).reason;
    assert.ok(refused instanceof ApiError);
    assert.equal(refused.code, 'empty_body');
    assert.equal(refused.details.index, undefined);
    // The batch refused, the other three again together, the refused one alone.
    assert.deepEqual(
      signCalls(calls).map((body) =>
        'files' in (body as object) ? (body as { files: unknown[] }).files.length : 'alone',
      ),
      [4, 3, 'alone'],
    );
  });

  it('completes together what was signed together, each with its token and its own result', async () => {
    const { session, calls } = pageSession();
    const signed = await Promise.all(
      [0, 1, 2].map((index) => session.sign({ name: `c${index}`, size: 8 })),
    );
    // Two of the three get their bytes; the third does not.
    for (const { signed: upload } of signed.slice(0, 2)) {
      const part = upload.parts[0];
      assert.ok(part);
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(8) }),
        part,
      );
    }
    const outcomes = await Promise.allSettled(
      signed.map(({ signed: upload, together }) =>
        session.complete({ id: upload.id, uploadToken: upload.uploadToken, together }),
      ),
    );
    assert.deepEqual(
      outcomes.map((outcome) =>
        outcome.status === 'fulfilled' ? outcome.value.status : (outcome.reason as ApiError).code,
      ),
      ['ready', 'ready', 'upload_incomplete'],
    );
    const completes = calls.filter((call) => call.path === '/v1/uploads/complete');
    assert.equal(completes.length, 1, 'one batch call');
    const [batch] = completes as [Call];
    assert.deepEqual(
      (batch.body as { uploads: { uploadToken: string }[] }).uploads.map(
        (entry) => entry.uploadToken,
      ),
      signed.map(({ signed: upload }) => upload.uploadToken),
    );
  });

  it('leaves a file stopped while its batch sign gathers out of it: not signed, it rejects with its reason', async () => {
    const { session, calls } = pageSession();
    const stop = new AbortController();
    const kept = [
      session.sign({ name: 'kept-a', size: 3 }),
      session.sign({ name: 'kept-b', size: 4 }),
    ];
    const stopped = session.sign({ name: 'stopped', size: 5 }, { signal: stop.signal });
    // Within the window: the batch call has not left (it leaves on a timer).
    stop.abort(new DOMException('removed', 'AbortError'));
    await assert.rejects(stopped, (error: unknown) => error === stop.signal.reason);
    await Promise.all(kept);
    assert.deepEqual(
      signCalls(calls).map((body) =>
        (body as { files: { name: string }[] }).files.map((f) => f.name),
      ),
      [['kept-a', 'kept-b']],
    );
  });

  it('signs nothing for a file stopped before it asks (a signal aborted already never fires again)', async () => {
    const { session, calls } = pageSession();
    const reason = new DOMException('paused', 'AbortError');
    await assert.rejects(
      session.sign({ name: 'late', size: 3 }, { signal: AbortSignal.abort(reason) }),
      (error: unknown) => error === reason,
    );
    // Another sign's window passes with nothing queued: no call at all.
    await session.sign({ name: 'next', size: 2 });
    assert.deepEqual(signCalls(calls), [{ name: 'next', size: 2 }]);
  });

  it('leaves a completion stopped while its batch gathers out of it: that upload stays unfinished', async () => {
    const { session, calls } = pageSession();
    const signed = await Promise.all(
      [0, 1, 2].map((index) => session.sign({ name: `s${index}`, size: 8 })),
    );
    for (const { signed: upload } of signed) {
      const part = upload.parts[0];
      assert.ok(part);
      await partAccepted(
        await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(8) }),
        part,
      );
    }
    const stop = new AbortController();
    const completions = signed.map(({ signed: upload, together }, index) =>
      session.complete({
        id: upload.id,
        uploadToken: upload.uploadToken,
        together,
        signal: index === 2 ? stop.signal : undefined,
      }),
    );
    stop.abort();
    const outcomes = await Promise.allSettled(completions);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['fulfilled', 'fulfilled', 'rejected'],
    );
    const [batch, ...more] = calls.filter((call) => call.path === '/v1/uploads/complete');
    assert.equal(more.length, 0);
    assert.ok(batch, 'one batch call');
    assert.deepEqual(
      (batch.body as { uploads: { id: string }[] }).uploads.map((entry) => entry.id),
      signed.slice(0, 2).map(({ signed: upload }) => upload.id),
    );
    const third = signed[2]?.signed;
    assert.ok(third);
    const state = await t.api(`/v1/uploads/${third.id}`);
    assert.equal(((await state.json()) as { status: string }).status, 'pending');
  });

  it('completes a lone file signed alone by the single call, its token in X-Upload-Token', async () => {
    const { session, calls } = pageSession();
    const { signed, together } = await session.sign({ name: 'lone.bin', size: 6 });
    const part = signed.parts[0];
    assert.ok(part);
    await partAccepted(
      await fetch(part.url, { method: 'PUT', headers: part.headers, body: patternBytes(6) }),
      part,
    );
    const record = await session.complete({
      id: signed.id,
      uploadToken: signed.uploadToken,
      together,
    });
    assert.equal(record.status, 'ready');
    const single = calls.find((call) => call.path === `/v1/uploads/${signed.id}/complete`);
    assert.equal(single?.headers['X-Upload-Token'], signed.uploadToken);
  });
});
