import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FileRecord } from '../../../src/api/types.js';
import { patternBytes } from '../../helpers/bytes.js';
import { type Instances, missingScaleServers, startInstances } from '../../helpers/instances.js';
import { json } from '../../helpers/service.js';
import { tusUpload, tusUploadUntil } from '../../helpers/tus-client.js';

const skip = (await missingScaleServers()) ?? undefined;
const MiB = 1024 * 1024;

/** The same upload URL on instance `index` directly. */
function on(scale: Instances, index: number, url: string): string {
  const { pathname } = new URL(url);
  return `${scale.direct(index)}${pathname}`;
}

/**
 * Two instances as processes of their own on one PostgreSQL database and one bucket: an
 * upload begun on one continues on the other, with no locker but the database, even when
 * the first is killed with a PATCH under way.
 */
describe('tus across instances (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;

  before(async () => {
    scale = await startInstances({ FILEHOST_RATE_LIMIT: '100000' });
  });
  after(() => scale?.stop());

  it('finishes on instance 1 an upload begun on instance 0, bytes short of a part included', async () => {
    const [first] = scale.instances as [Instances['instances'][0]];
    const headers = { Authorization: `Bearer ${first.secretKey}` };
    const bytes = Buffer.from(patternBytes(13 * MiB + 99));
    // 3 MiB chunks: after two, 1 MiB waits in the bucket as a part's beginning.
    const begun = await tusUploadUntil(
      bytes,
      { endpoint: `${scale.direct(0)}/v1/tus`, chunkSize: 3 * MiB, headers },
      6 * MiB,
      (upload) => upload.abort(),
    );
    const head = await fetch(on(scale, 1, begun.url), {
      method: 'HEAD',
      headers: { ...headers, 'Tus-Resumable': '1.0.0' },
    });
    assert.equal(head.status, 200);
    assert.equal(Number(head.headers.get('upload-offset')), begun.accepted);
    const outcome = await tusUpload(bytes, {
      uploadUrl: on(scale, 1, begun.url),
      chunkSize: 3 * MiB,
      headers,
    });
    assert.ok(outcome.fileId, outcome.body);
    const record = await json<FileRecord>(
      await fetch(`${scale.direct(0)}/v1/files/${outcome.fileId}`, { headers }),
    );
    assert.equal(record.status, 'ready');
    const served = Buffer.from(await (await fetch(record.url as string)).arrayBuffer());
    assert.ok(served.equals(bytes), 'the file holds exactly the bytes sent');
    const left = (await scale.stored()).filter((key) => key.includes('tus-part'));
    assert.deepEqual(left, [], 'no unfinished part is left in the bucket');
  });

  it('continues on instance 1 after instance 0 is killed mid-PATCH', async () => {
    const first = scale.instances[0] as Instances['instances'][0];
    const headers = { Authorization: `Bearer ${first.secretKey}` };
    const bytes = Buffer.from(patternBytes(17 * MiB + 3));
    const begun = await tusUploadUntil(
      bytes,
      { endpoint: `${scale.direct(0)}/v1/tus`, chunkSize: 5 * MiB, headers },
      5 * MiB,
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        first.process.kill('SIGKILL');
        await first.exited;
      },
    );
    const outcome = await tusUpload(bytes, {
      uploadUrl: on(scale, 1, begun.url),
      chunkSize: 5 * MiB,
      headers,
      retryDelays: [500, 1000, 2000, 4000, 8000, 8000, 8000],
    });
    assert.ok(outcome.fileId, outcome.body);
    const record = await json<FileRecord>(
      await fetch(`${scale.direct(1)}/v1/files/${outcome.fileId}`, { headers }),
    );
    const served = Buffer.from(await (await fetch(record.url as string)).arrayBuffer());
    assert.ok(served.equals(bytes), 'the file holds exactly the bytes sent');
  });
});
