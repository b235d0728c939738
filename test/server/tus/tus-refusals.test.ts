// @deployments embedded scale
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { UploadTokenResponse } from '../../../src/api/types.js';
import { sweep } from '../../../src/server/uploads/sweeper.js';
import { patternBytes } from '../../helpers/bytes.js';
import { json, startTestService, type TestService } from '../../helpers/service.js';
import { rawRequest } from '../../helpers/tus-client.js';

const MiB = 1024 * 1024;

/** A tus request by hand with `key`. */
const tus = (
  url: string,
  method: string,
  key: string,
  headers: Record<string, string> = {},
  body?: Buffer,
) =>
  rawRequest(
    url,
    method,
    { Authorization: `Bearer ${key}`, 'Tus-Resumable': '1.0.0', ...headers },
    body,
  );

async function create(svc: TestService, key: string, size: number, type?: string) {
  const metadata = [`filename ${Buffer.from('f.bin').toString('base64')}`];
  if (type) metadata.push(`filetype ${Buffer.from(type).toString('base64')}`);
  const answer = await tus(`${svc.apiUrl}/v1/tus`, 'POST', key, {
    'Upload-Length': String(size),
    'Upload-Metadata': metadata.join(','),
  });
  assert.equal(answer.status, 201, answer.body);
  return answer.headers.location as string;
}

const patch = (url: string, key: string, offset: number, body: Buffer) =>
  tus(
    url,
    'PATCH',
    key,
    { 'Upload-Offset': String(offset), 'Content-Type': 'application/offset+octet-stream' },
    body,
  );

describe('tus: refusals at the end, slow senders, expiry', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      FILEHOST_RATE_LIMIT: '100000',
      FILEHOST_BODY_PROGRESS_WINDOW: '1',
    });
  });
  after(() => svc.close());

  it('refuses at the last byte what complete would refuse (415 from the bytes), keeping nothing', async () => {
    const token = await json<UploadTokenResponse>(
      await svc.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ types: ['image/png'] }),
      }),
      201,
    );
    const before = await svc.stored();
    const bytes = Buffer.from('not a picture at all, just words\n'.repeat(100));
    const url = await create(svc, token.token, bytes.length, 'image/png');
    const last = await patch(url, token.token, 0, bytes);
    assert.equal(last.status, 415, last.body);
    assert.equal(JSON.parse(last.body).error.code, 'unsupported_type');
    assert.equal(last.headers['tus-resumable'], '1.0.0');
    assert.equal((await tus(url, 'HEAD', token.token)).status, 404);
    assert.deepEqual(await svc.stored(), before);
  });

  it('ends a PATCH body that stalls (408) and keeps none of it', async () => {
    const url = await create(svc, svc.secretKey, 1000);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(url, {
        method: 'PATCH',
        headers: {
          Authorization: `Bearer ${svc.secretKey}`,
          'Tus-Resumable': '1.0.0',
          'Upload-Offset': '0',
          'Content-Type': 'application/offset+octet-stream',
          'Content-Length': '1000',
        },
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      // Ten bytes, then nothing: far under 16 KiB in the one-second window.
      req.write(Buffer.alloc(10, 1));
    });
    assert.equal(answer.status, 408, answer.body);
    assert.equal(JSON.parse(answer.body).error.code, 'request_timeout');
    const head = await tus(url, 'HEAD', svc.secretKey);
    assert.equal(head.headers['upload-offset'], '0');
  });

  it('lets the sweeper remove an expired upload with its parts and its unfinished part', async () => {
    const short = await startTestService({
      FILEHOST_UPLOAD_LIFETIME: '2',
      FILEHOST_PENDING_GRACE: '0',
    });
    try {
      const before = await short.stored();
      const url = await create(short, short.secretKey, 12 * MiB);
      // One whole part and 1 MiB of the next, kept as an object of its own.
      const sent = await patch(url, short.secretKey, 0, Buffer.from(patternBytes(6 * MiB)));
      assert.equal(sent.status, 204, sent.body);
      const expires = Date.parse(sent.headers['upload-expires'] as string);
      assert.ok(expires > Date.now() - 1000 && expires < Date.now() + 5000, `${expires}`);
      const id = url.split('/').at(-2) as string;
      assert.ok((await short.stored()).some((path) => path.includes('tus-part')));
      await new Promise((resolve) => setTimeout(resolve, 3100));
      const swept = await sweep(short.service.context);
      assert.equal(swept.expired, 1);
      assert.equal((await tus(url, 'HEAD', short.secretKey)).status, 404);
      assert.equal(await short.service.context.db.getTusUpload(id), null, 'its tus state went');
      assert.deepEqual(
        (await short.stored()).filter((path) => !before.includes(path)),
        [],
        `nothing of ${id} is left`,
      );
    } finally {
      await short.close();
    }
  });
});
