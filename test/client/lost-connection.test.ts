// @deployments embedded scale
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { FilehostConnection } from '../../src/client/connection.js';
import { ApiError, FilehostClient } from '../../src/client/index.js';
import { type ClosingProxy, startClosingProxy } from '../helpers/closing-proxy.js';
import { publicUrlOf } from '../helpers/public-url.js';
import {
  assertSameBytes,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

/*
 * The keep-alive race, played on cue: the service closes a kept-alive connection (its
 * `keepAliveTimeout`) just as the client writes its next request on it. A proxy in front
 * of the real service ends such a connection at the request's first bytes, which never
 * reach the service; the same request on a new connection gets the service's real answer.
 */
describe('a call whose kept-alive connection is closed under it', () => {
  let t: TestService;
  let proxy: ClosingProxy;
  before(async () => {
    t = await startTestService();
  });
  after(async () => {
    await proxy?.close();
    await t.close();
  });
  beforeEach(async () => {
    await proxy?.close();
    proxy = await startClosingProxy(t.apiUrl);
  });

  /** A client through the proxy, logging each request its fetch is asked to send. */
  function clientLogging(methods: string[]): FilehostClient {
    return new FilehostClient({
      endpoint: proxy.url,
      apiKey: t.secretKey,
      fetch: (input, init) => {
        methods.push(init?.method ?? 'GET');
        return fetch(input, init);
      },
    });
  }

  /** A first call answered on a connection, then the next request on it is ended by `how`. */
  async function keptAliveThenEnded(
    client: { listFiles(): Promise<unknown> },
    how: 'reset' | 'close',
  ): Promise<void> {
    await client.listFiles();
    // The answer's connection goes back to the pool as its body ends.
    await new Promise(setImmediate);
    proxy.end = how;
  }

  it("is a network error on Node's fetch by itself (the connection layer browsers use)", async () => {
    // What every `FilehostClient` call did before: a browser's fetch resends such a
    // request by itself; Node's does not.
    const connection = new FilehostConnection({ endpoint: proxy.url, apiKey: t.secretKey });
    await keptAliveThenEnded(connection, 'reset');
    await assert.rejects(connection.listFiles(), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'network_error');
      return true;
    });
    assert.equal(proxy.ended, 1);
  });

  it('a sign reset as it arrives is sent again on a new connection, and signs once', async () => {
    const methods: string[] = [];
    const client = clientLogging(methods);
    await keptAliveThenEnded(client, 'reset');
    const signed = await client.sign({ name: 'raced.bin', size: 1000 });
    assert.equal(proxy.ended, 1, 'the kept-alive connection was reset under the sign');
    assert.equal(proxy.connections, 2);
    assert.deepEqual(methods, ['GET', 'POST', 'POST']);
    proxy.end = null;
    const state = await client.getUpload(signed.id);
    assert.equal(state.status, 'pending');
  });

  it('a one-request upload closed as it arrives is sent again whole, and stored once', async () => {
    const methods: string[] = [];
    const client = clientLogging(methods);
    const bytes = patternBytes(300_000, 3);
    const name = `closed-${Date.now()}.bin`;
    await keptAliveThenEnded(client, 'close');
    const uploaded = await client.upload(bytes, { name });
    assert.equal(proxy.ended, 1);
    assert.deepEqual(methods, ['GET', 'POST', 'POST']);
    proxy.end = null;
    const files = await client.listFiles({ limit: 100 });
    assert.deepEqual(
      files.files.filter((file) => file.name === name).map((file) => file.id),
      [uploaded.id],
    );
    const record = await client.getFile(uploaded.id);
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
  });

  it('a stream body, read once, is not sent again: the call fails as a network error', async () => {
    const methods: string[] = [];
    const client = clientLogging(methods);
    await keptAliveThenEnded(client, 'reset');
    const body = new Blob([patternBytes(70_000, 4)]).stream();
    await assert.rejects(client.upload(body, { name: 'stream.bin' }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'network_error');
      return true;
    });
    assert.deepEqual(methods, ['GET', 'POST']);
    assert.equal(proxy.ended, 1);
  });

  it('a call aborted as its connection is reset rejects with the abort, not sent again', async () => {
    const methods: string[] = [];
    const client = clientLogging(methods);
    await keptAliveThenEnded(client, 'reset');
    const controller = new AbortController();
    const reason = new Error('the caller gave up');
    proxy.onEnd = () => controller.abort(reason);
    await assert.rejects(
      client.sign({ name: 'aborted.bin', size: 10 }, { signal: controller.signal }),
      (error: unknown) => error === reason,
    );
    assert.deepEqual(methods, ['GET', 'POST']);
  });

  it('is sent again once only: a new connection ended too fails the call', async () => {
    const methods: string[] = [];
    const client = clientLogging(methods);
    await keptAliveThenEnded(client, 'reset');
    proxy.endFresh = true;
    await assert.rejects(client.deleteFile('f_nothing'), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.code, 'network_error');
      return true;
    });
    assert.deepEqual(methods, ['GET', 'DELETE', 'DELETE']);
    assert.equal(proxy.ended, 2);
  });
});
