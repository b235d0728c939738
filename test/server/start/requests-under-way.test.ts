// @deployments embedded scale (no store: the same on both)
import assert from 'node:assert/strict';
import {
  Agent,
  createServer,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { answerInOurShape } from '../../../src/server/http/server-options.js';
import { RequestsUnderWay } from '../../../src/server/start/draining.js';

/** Kept-alive connections (one per request at once), as a browser's. */
const agent = new Agent({ keepAlive: true });

/** A GET: its status and `Connection` header once it ends. */
function get(port: number, path: string): Promise<{ status: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest({ port, path, agent }, (response) => {
      response.resume();
      response.once('end', () =>
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
      );
    });
    request.once('error', reject);
    request.end();
  });
}

/** Resolves with whether `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    promise.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}

describe('RequestsUnderWay: what a stopping service waits for', () => {
  let server: Server;
  let port: number;
  const underWay = new RequestsUnderWay();
  /** Requests to `/held` are answered when the test says. */
  const held: ServerResponse[] = [];
  const arrived = new Set<() => void>();

  before(async () => {
    server = createServer((request, response) => {
      if (request.url === '/held') {
        held.push(response);
        for (const notify of arrived) notify();
        return;
      }
      response.end('at once');
    });
    answerInOurShape(server, { warn() {} }, { maxConnectionsPerClient: 0, trustProxy: undefined });
    underWay.watch(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const nextHeld = () =>
    new Promise<ServerResponse>((resolve) => {
      const count = held.length;
      const notify = () => {
        if (held.length > count) {
          arrived.delete(notify);
          resolve(held[count] as ServerResponse);
        }
      };
      arrived.add(notify);
    });

  it('counts answers under way before and after draining starts, and is idle only once all have ended', async () => {
    // Answers that ended before draining are not under way.
    assert.equal((await get(port, '/quick')).status, 200);
    assert.equal(underWay.count, 0);

    const heldBefore = nextHeld();
    const first = get(port, '/held');
    const firstAnswer = await heldBefore;
    assert.equal(underWay.count, 1, 'a request whose answer is not yet written is under way');
    assert.equal(underWay.draining, false);

    underWay.startDraining();
    assert.equal(underWay.draining, true);
    assert.equal(underWay.count, 1, 'the answer under way when draining started is followed');
    const idle = underWay.idle();

    // A request arriving while draining is counted too, and told the connection ends.
    const heldDuring = nextHeld();
    const second = get(port, '/held');
    const secondAnswer = await heldDuring;
    assert.equal(underWay.count, 2);

    firstAnswer.end('first');
    assert.deepEqual(await first, { status: 200, connection: 'keep-alive' });
    assert.equal(
      await settlesWithin(idle, 100),
      false,
      'not idle while the second answer is under way',
    );
    secondAnswer.end('second');
    assert.deepEqual(await second, { status: 200, connection: 'close' });
    assert.equal(await settlesWithin(idle, 5_000), true, 'idle once both answers ended');
    assert.equal(underWay.count, 0);
    assert.equal(await settlesWithin(underWay.idle(), 100), true, 'idle at once when none is');
  });

  it('an answer cut by its connection closing is no longer under way', async () => {
    const heldNow = nextHeld();
    const request = httpRequest({ port, path: '/held', agent: false });
    request.once('error', () => {});
    request.end();
    await heldNow;
    assert.equal(underWay.count, 1);
    const idle = underWay.idle();
    request.destroy();
    assert.equal(await settlesWithin(idle, 5_000), true);
    assert.equal(underWay.count, 0);
  });
});
