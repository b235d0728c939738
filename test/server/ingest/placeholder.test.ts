// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import {
  thumbHashToApproximateAspectRatio,
  thumbHashToAverageRGBA,
  thumbHashToRGBA,
} from 'thumbhash';
import type { WebhookPayload } from '../../../src/api/events.js';
import type {
  FileListResponse,
  FileRecord,
  ImportResponse,
  SignResponse,
  UploadBatchResponse,
  UploadResponse,
} from '../../../src/api/types.js';
import { orientedJpeg, type Rgb } from '../../helpers/images.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import { json, partAccepted, startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

/** An image of one colour and shape, as sharp writes it, and what its placeholder must say. */
interface Sample {
  name: string;
  type: string;
  bytes: Buffer;
  color: Rgb;
  /** Width / height as shown. */
  aspect: number;
}

const ORANGE: Rgb = { r: 230, g: 120, b: 30 };
const TEAL: Rgb = { r: 20, g: 150, b: 140 };
const PURPLE: Rgb = { r: 120, g: 40, b: 160 };
const OLIVE: Rgb = { r: 128, g: 128, b: 0 };

async function sample(
  name: string,
  format: 'png' | 'jpeg' | 'webp' | 'gif',
  width: number,
  height: number,
  color: Rgb,
): Promise<Sample> {
  const bytes = await sharp({ create: { width, height, channels: 3, background: color } })
    .toFormat(format)
    .toBuffer();
  return { name, type: `image/${format}`, bytes, color, aspect: width / height };
}

/**
 * A PNG whose chunks are whole (so the location stripper can rewrite it: a damaged one is
 * refused at ingest as `metadata_unreadable`) but whose image data is no zlib stream:
 * recognised as a PNG, stored, never decoded.
 */
const BROKEN_PNG = Buffer.concat([
  Buffer.from('89504e470d0a1a0a', 'hex'),
  pngChunk('IHDR', Buffer.from('00000001000000010806000000', 'hex')),
  pngChunk('IDAT', Buffer.alloc(300, 7)),
  pngChunk('IEND', Buffer.alloc(0)),
]);

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

function decoded(placeholder: string | null | undefined) {
  assert.equal(typeof placeholder, 'string', 'an image has a placeholder');
  const hash = Buffer.from(placeholder as string, 'base64');
  assert.ok(hash.length >= 5 && hash.length <= 30, `a ThumbHash is about 25 bytes: ${hash.length}`);
  return hash;
}

/** The placeholder decodes to the sample's colour and (ThumbHash's approximate) shape. */
function assertLooksLike(placeholder: string | null | undefined, expected: Sample) {
  const hash = decoded(placeholder);
  const average = thumbHashToAverageRGBA(hash);
  const got = { r: average.r * 255, g: average.g * 255, b: average.b * 255 };
  for (const channel of ['r', 'g', 'b'] as const) {
    assert.ok(
      Math.abs(got[channel] - expected.color[channel]) <= 16,
      `${expected.name}: average ${JSON.stringify(got)}, drawn ${JSON.stringify(expected.color)}`,
    );
  }
  const aspect = thumbHashToApproximateAspectRatio(hash);
  // ThumbHash keeps the ratio of its component counts (at most 7 a side): within 20%.
  assert.ok(
    Math.abs(Math.log(aspect / expected.aspect)) < Math.log(1.2),
    `${expected.name}: aspect ${aspect}, drawn ${expected.aspect}`,
  );
}

describe('placeholders: every ready image carries its ThumbHash', () => {
  let t: TestService;
  let receiver: WebhookReceiver;
  let remote: Awaited<ReturnType<typeof serveRemote>>;
  let samples: Sample[];
  let oriented: Buffer;

  before(async () => {
    samples = [
      await sample('wide.png', 'png', 160, 80, ORANGE),
      await sample('tall.jpeg', 'jpeg', 60, 120, TEAL),
      await sample('square.webp', 'webp', 90, 90, PURPLE),
      // Larger than 100 px a side: shrunk on load; and 12 MP would be slow only for this test.
      await sample('big.jpeg', 'jpeg', 1600, 900, OLIVE),
      await sample('small.gif', 'gif', 12, 6, ORANGE),
    ];
    oriented = await orientedJpeg();
    receiver = await startReceiver();
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response) => {
      const name = (request.url ?? '').slice(1);
      const found = samples.find((each) => each.name === name);
      if (!found) {
        response.statusCode = 404;
        response.end();
        return;
      }
      response.setHeader('content-type', found.type);
      response.end(found.bytes);
    });
    t = await startTestService(
      { FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true', FILEHOST_IMPORT_ALLOW_PRIVATE: 'false' },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
    await json(
      await t.api('/v1/webhooks', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['file.ready'] }),
      }),
      201,
    );
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
    remote?.server.close();
  });

  const oneRequest = async (name: string, type: string, bytes: Buffer) => {
    const answer = await json<UploadResponse>(
      await t.api('/v1/upload', {
        method: 'POST',
        headers: { 'Content-Type': type, 'X-Filename': name },
        body: new Uint8Array(bytes),
      }),
      201,
    );
    return json<FileRecord>(await t.api(`/v1/files/${answer.id}`));
  };

  const viaParts = async (name: string, type: string, bytes: Buffer) => {
    const signed = await json<SignResponse>(await t.sign({ name, size: bytes.length, type }), 201);
    // Every sample is smaller than one part.
    const [part] = signed.parts;
    assert.ok(part && signed.parts.length === 1);
    const body = new Uint8Array(bytes);
    await partAccepted(await fetch(part.url, { method: 'PUT', headers: part.headers, body }), part);
    const record = await json<FileRecord>(await t.complete(signed.id));
    assert.equal(record.status, 'ready');
    return record;
  };

  const viaBatch = async (files: { name: string; type: string; bytes: Buffer }[]) => {
    const form = new FormData();
    form.append(
      'files',
      JSON.stringify(files.map(({ name, type, bytes }) => ({ name, type, size: bytes.length }))),
    );
    for (const { name, type, bytes } of files) {
      form.append('file', new Blob([new Uint8Array(bytes)], { type }), name);
    }
    const answer = await json<UploadBatchResponse>(
      await t.api('/v1/upload/batch', { method: 'POST', body: form }),
    );
    return answer.results.map((result) => {
      assert.ok(result.file, JSON.stringify(result));
      return result.file;
    });
  };

  const viaImport = async (name: string) => {
    const { file } = await json<ImportResponse>(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/${name}` }),
      }),
      202,
    );
    assert.equal(file.placeholder, null, 'an import not yet ready has none');
    const deadline = Date.now() + 20_000;
    for (;;) {
      const record = await json<FileRecord>(await t.api(`/v1/files/${file.id}`));
      if (record.status === 'ready') return record;
      assert.equal(record.status, 'pending', JSON.stringify(record));
      assert.ok(Date.now() < deadline, `import ${file.id} still pending`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('gives each image its colour and shape on every path, the same in the record, the list and file.ready', async () => {
    const made: { record: FileRecord; sample: Sample }[] = [];
    for (const each of samples) {
      made.push({ sample: each, record: await oneRequest(each.name, each.type, each.bytes) });
      made.push({ sample: each, record: await viaParts(each.name, each.type, each.bytes) });
      made.push({ sample: each, record: await viaImport(each.name) });
    }
    const batched = await viaBatch(samples.map(({ name, type, bytes }) => ({ name, type, bytes })));
    batched.forEach((record, index) => {
      made.push({ sample: samples[index] as Sample, record });
    });
    for (const { record, sample: expected } of made) assertLooksLike(record.placeholder, expected);

    // GET /v1/files/:id says what each path answered (the batch answers its records too).
    for (const { record } of made) {
      const fetched = await json<FileRecord>(await t.api(`/v1/files/${record.id}`));
      assert.equal(fetched.placeholder, record.placeholder, `${record.name} by id`);
    }
    const listed = await json<FileListResponse>(await t.api('/v1/files?limit=100'));
    const byId = new Map(listed.files.map((file) => [file.id, file]));
    for (const { record } of made) {
      assert.equal(byId.get(record.id)?.placeholder, record.placeholder, `${record.name} listed`);
    }
    const deliveries = await receiver.waitFor(made.length, 30_000);
    const ready = new Map(
      deliveries.map((delivery) => {
        const payload = JSON.parse(delivery.body) as WebhookPayload;
        const data = payload.data as FileRecord;
        return [data.id, data];
      }),
    );
    for (const { record } of made) {
      assert.equal(ready.get(record.id)?.placeholder, record.placeholder, `${record.name} event`);
    }
  });

  it('applies EXIF orientation 6: the placeholder is upright, taller than wide, red over blue', async () => {
    // Stored 300 x 200, red left, blue right; shown a quarter turned: 200 x 300, red on top.
    for (const record of [
      await oneRequest('turned.jpg', 'image/jpeg', oriented),
      await viaParts('turned.jpg', 'image/jpeg', oriented),
    ]) {
      const hash = decoded(record.placeholder);
      const aspect = thumbHashToApproximateAspectRatio(hash);
      assert.ok(aspect < 0.8, `shown 200 x 300 (2/3), placeholder aspect ${aspect}`);
      const { w, h, rgba } = thumbHashToRGBA(hash);
      const pixel = (x: number, y: number) => {
        const at = (y * w + x) * 4;
        return { r: rgba[at] as number, b: rgba[at + 2] as number };
      };
      const top = pixel(Math.floor(w / 2), 1);
      const bottom = pixel(Math.floor(w / 2), h - 2);
      assert.ok(top.r > top.b + 60, `red on top: ${JSON.stringify(top)}`);
      assert.ok(bottom.b > bottom.r + 60, `blue below: ${JSON.stringify(bottom)}`);
    }
  });

  it('is null for a text file and for an "image" that does not decode, which are still stored', async () => {
    const text = Buffer.from('hello, placeholders\n');
    const records = [
      await oneRequest('note.txt', 'text/plain', text),
      await viaParts('note.txt', 'text/plain', text),
      await oneRequest('broken.png', 'image/png', BROKEN_PNG),
      await viaParts('broken.png', 'image/png', BROKEN_PNG),
      ...(await viaBatch([
        { name: 'note.txt', type: 'text/plain', bytes: text },
        { name: 'broken.png', type: 'image/png', bytes: BROKEN_PNG },
      ])),
    ];
    for (const record of records) {
      assert.equal(record.status, 'ready');
      assert.equal(record.placeholder, null, record.name);
      const fetched = await json<FileRecord>(await t.api(`/v1/files/${record.id}`));
      assert.equal(fetched.placeholder, null, `${record.name} by id`);
    }
    const broken = records.find((record) => record.name === 'broken.png') as FileRecord;
    assert.equal(broken.mime, 'image/png', 'recognised as a PNG from its first bytes');
  });
});
