import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { noiseJpeg } from '../../helpers/images.js';
import { descendants, isRunning } from '../../helpers/process-tree.js';
import { type ChildService, json, spawnService } from '../../helpers/service.js';

/** Long enough for a process to read the end of its input and exit on a busy machine. */
const GRACE_MS = 15_000;

/**
 * A service killed without its clean close (`kill -9`, the OOM killer, a crash) must not
 * leave its ExifTool processes behind: nothing else would ever end them. The service is a
 * real process, stopped with SIGKILL once a photo's upload has started ExifTool.
 */
describe('a killed service leaves no ExifTool process behind', () => {
  let dataDir: string;
  let service: ChildService | undefined;
  let exiftools: number[] = [];

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'filehost-killed-exiftool-'));
  });
  after(async () => {
    service?.process.kill('SIGKILL');
    // What this test started is ended here even when it failed, so no run inherits it.
    for (const pid of exiftools.filter(isRunning)) process.kill(pid, 'SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('ends every ExifTool process of a service killed with SIGKILL', async () => {
    service = await spawnService({ FILEHOST_DATA_DIR: dataDir, FILEHOST_STRIP_METADATA: 'gps' });
    const photo = new Uint8Array(await noiseJpeg(64, 64));
    await json(
      await fetch(`${service.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${service.secretKey}`,
          'Content-Type': 'image/jpeg',
          'X-Filename': 'photo.jpg',
        },
        body: photo,
      }),
      201,
    );
    const pid = service.process.pid as number;
    exiftools = descendants(pid)
      .filter((each) => /exiftool/i.test(each.command))
      .map((each) => each.pid);
    assert.ok(exiftools.length > 0, 'the photo was handed to ExifTool, a child of the service');

    service.process.kill('SIGKILL');
    assert.equal((await service.exited).signal, 'SIGKILL');
    const deadline = Date.now() + GRACE_MS;
    while (exiftools.some(isRunning) && Date.now() < deadline) await sleep(100);
    assert.deepEqual(
      exiftools.filter(isRunning),
      [],
      `ExifTool processes of the killed service (pid ${pid}) still run after ${GRACE_MS / 1000} s`,
    );
  });
});
