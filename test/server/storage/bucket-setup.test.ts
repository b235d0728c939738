import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { s3ClientFor } from '../../../src/server/storage/s3/bucket-setup.js';

/** A bucket endpoint that accepts connections and reads requests, and never answers. */
describe('bucket calls (npm run admin -- bucket setup, the tests making buckets)', () => {
  const silent = createServer((socket: Socket) => {
    socket.resume();
    sockets.add(socket);
  });
  const sockets = new Set<Socket>();
  let endpoint: string;

  before(async () => {
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    if (!address || typeof address === 'string') throw new Error('not listening');
    endpoint = `http://127.0.0.1:${address.port}`;
  });
  after(() => {
    for (const socket of sockets) socket.destroy();
    silent.close();
  });

  it('give up on a store that never answers, instead of waiting for ever', {
    timeout: 20_000,
  }, async () => {
    const client = s3ClientFor(
      {
        bucket: 'files',
        region: 'us-east-1',
        endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      },
      300,
    );
    await assert.rejects(client.send(new HeadBucketCommand({ Bucket: 'files' })), {
      name: 'TimeoutError',
    });
    client.destroy();
  });
});
