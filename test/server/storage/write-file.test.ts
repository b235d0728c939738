import assert from 'node:assert/strict';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pipeUntilClosed } from '../../../src/server/storage/local-disk/write-file.js';

/** A destination whose closing takes a while, as a file stream's does while `open` is pending. */
function slowToClose(): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
    destroy(error, callback) {
      setTimeout(() => callback(error), 50);
    },
  });
}

async function* failingAt(after: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < after; i++) yield Buffer.from('bytes');
  throw new Error('the connection was cut');
}

describe('pipeUntilClosed', () => {
  it('fails only once the destination has closed (pipeline alone settles before: nodejs/node#51540)', async () => {
    for (const after of [0, 1, 3]) {
      const destination = slowToClose();
      await assert.rejects(pipeUntilClosed(failingAt(after), destination), /cut/);
      assert.equal(destination.closed, true, `closed when it fails (after ${after} chunks)`);
    }
  });

  it('leaves no file behind when the source fails at once and the file is then removed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'filehost-write-file-'));
    try {
      for (let i = 0; i < 50; i++) {
        const path = join(dir, `temp-${i}`);
        await assert.rejects(
          pipeUntilClosed(failingAt(0), createWriteStream(path, { flags: 'wx' })),
        );
        await rm(path, { force: true });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (let i = 0; i < 50; i++) assert.equal(existsSync(join(dir, `temp-${i}`)), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('passes every byte through when nothing fails', async () => {
    const received: Buffer[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received.push(chunk);
        callback();
      },
    });
    await pipeUntilClosed(
      (async function* () {
        yield Buffer.from('a');
        yield Buffer.from('bc');
      })(),
      destination,
    );
    assert.equal(Buffer.concat(received).toString(), 'abc');
  });
});
