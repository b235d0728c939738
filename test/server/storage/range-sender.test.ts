import assert from 'node:assert/strict';
import { open as openCallback, readdirSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import fc from 'fast-check';
import {
  SEND_CHUNK_BYTES,
  sendFileRange,
} from '../../../src/server/storage/local-disk/range-sender.js';
import { patternBytes } from '../../helpers/bytes.js';

const openFd = promisify(openCallback) as (path: string, flags: string) => Promise<number>;

/** Descriptors this process holds: a send must leave none of its own behind. */
const openDescriptors = () => readdirSync('/proc/self/fd').length;

/** Until `check` holds (a descriptor's close is not waited for by the send), at most 10 s. */
async function eventually(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(what);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A destination slow to take each chunk, as a socket the kernel has not drained: it keeps
 * the chunk it was handed (not a copy) and reads it only when it says it is done with it,
 * some turns of the event loop later. A sender that reused a chunk before then would show
 * here as bytes of another read.
 */
function slowDestination(): { destination: Writable; received: () => Buffer } {
  const parts: Buffer[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const turns = 1 + ((chunk[0] ?? 0) % 4);
      const later = (left: number) => {
        if (left > 0) setImmediate(() => later(left - 1));
        else {
          parts.push(Buffer.from(chunk));
          done();
        }
      };
      later(turns);
    },
  });
  return { destination, received: () => Buffer.concat(parts) };
}

describe('sending a range of a file from reused buffers', () => {
  let dir: string;
  let path: string;
  const bytes = Buffer.from(patternBytes(3 * SEND_CHUNK_BYTES + 12_345, 9));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-sender-'));
    path = join(dir, 'blob');
    await writeFile(path, bytes);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('sends exactly the bytes of any range, however many sends share the buffers', async () => {
    const baseline = openDescriptors();
    const range = fc
      .tuple(fc.nat(bytes.length - 1), fc.nat(bytes.length - 1))
      .map(([a, b]) => ({ start: Math.min(a, b), end: Math.max(a, b) }));
    await fc.assert(
      fc.asyncProperty(fc.array(range, { minLength: 1, maxLength: 6 }), async (ranges) => {
        await Promise.all(
          ranges.map(async ({ start, end }) => {
            const { destination, received } = slowDestination();
            const finished = new Promise((resolve) => destination.on('finish', resolve));
            await sendFileRange(await openFd(path, 'r'), { start, end }, destination);
            await finished;
            assert.ok(received().equals(bytes.subarray(start, end + 1)), `${start}-${end}`);
          }),
        );
      }),
      { numRuns: 40 },
    );
    await eventually(() => openDescriptors() <= baseline, 'every descriptor closed');
  });

  it('stops reading and closes the file when the client goes away midway', async () => {
    // Larger than any socket buffer the kernel would give loopback: it cannot all be sent.
    const large = join(dir, 'large');
    const size = 256 * 1024 * 1024;
    await writeFile(large, bytes);
    await truncate(large, size);
    let sending: Promise<void> | undefined;
    let answer: ServerResponse | undefined;
    const server = createServer((_request, response) => {
      answer = response;
      response.writeHead(200, { 'content-length': String(size) });
      sending = openFd(large, 'r').then((fd) =>
        sendFileRange(fd, { start: 0, end: size - 1 }, response),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseline = openDescriptors();
    try {
      const { port } = server.address() as AddressInfo;
      let got = 0;
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`http://127.0.0.1:${port}/`, { agent: false }, (res) => {
          res.on('data', (chunk: Buffer) => {
            got += chunk.length;
            // Gone after the first bytes: the rest was never asked of the disk.
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ECONNRESET') reject(error);
        });
        req.end();
      });
      assert.ok(got > 0 && got < size, `the client left after ${got} bytes`);
      // Settled (not left waiting for a write that will never finish), without an error,
      // and without reading on to the end.
      await sending;
      assert.equal(answer?.writableEnded, false, 'the send stopped before its last chunk');
      await eventually(() => openDescriptors() <= baseline, 'the file closed');
    } finally {
      server.close();
    }
  });

  it('cuts the answer and rejects when the file ends before the range does', async () => {
    const short = join(dir, 'short');
    await writeFile(short, bytes);
    const fd = await openFd(short, 'r');
    await truncate(short, SEND_CHUNK_BYTES + 10);
    const { destination } = slowDestination();
    const destroyed = new Promise((resolve) => destination.on('close', resolve));
    destination.on('error', () => {});
    await assert.rejects(
      sendFileRange(fd, { start: 0, end: bytes.length - 1 }, destination),
      /ends before byte/,
    );
    await destroyed;
    assert.equal(destination.writableFinished, false, 'the answer was cut, not ended');
  });
});
