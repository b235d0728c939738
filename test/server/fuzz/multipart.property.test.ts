import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { API_ERROR_STATUS } from '../../../src/api/errors.js';
import type { FileListResponse, FileRecord, UploadResponse } from '../../../src/api/types.js';
import { sanitizeName } from '../../../src/server/rules/names.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { json, startTestService, type TestService } from '../../helpers/service.js';

/**
 * Multipart bodies, generated and then sent whole or damaged, through the running service
 * (the parser is @fastify/multipart's busboy, configured by us, with our limits around it).
 * A whole body is stored exactly: the file's bytes, its name as sanitised, its metadata.
 * A damaged one is refused in the documented shape, or, where the damage still leaves a
 * valid body, stored; never a 5xx, never half a file. Seeded, so a failure replays.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_MULTIPART_CASES ?? 300);

interface Form {
  boundary: string;
  name: string;
  type: string;
  bytes: Uint8Array;
  metadata: Record<string, string> | null;
  metadataFirst: boolean;
  extraFields: [string, string][];
  preamble: string;
  epilogue: string;
  lowerCaseHeaders: boolean;
}

const boundaryChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?";
const form: fc.Arbitrary<Form> = fc.record({
  boundary: fc
    .array(fc.constantFrom(...boundaryChars), { minLength: 1, maxLength: 70 })
    .map((chars) => chars.join(''))
    .filter((b) => !b.endsWith(' ')),
  name: fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
    .filter((n) => !/["\r\n\\]/.test(n)),
  type: fc.constantFrom('application/octet-stream', 'text/plain', 'image/png', 'application/json'),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 4000 }),
  metadata: fc.option(
    fc
      .dictionary(fc.stringMatching(/^[a-z]{1,10}$/), fc.string({ maxLength: 30 }), { maxKeys: 4 })
      .map((m) => ({ ...m })),
    { nil: null },
  ),
  metadataFirst: fc.boolean(),
  extraFields: fc.array(
    fc.tuple(fc.stringMatching(/^x[a-z]{0,6}$/), fc.string({ maxLength: 20 })),
    { maxLength: 3 },
  ),
  preamble: fc.constantFrom('', 'preamble text\r\n'),
  epilogue: fc.constantFrom('', '\r\n', 'epilogue'),
  lowerCaseHeaders: fc.boolean(),
});

type Damage =
  | { kind: 'none' }
  | { kind: 'truncate'; at: number }
  | { kind: 'flip'; at: number }
  | { kind: 'insert'; at: number; text: string };
const damage: fc.Arbitrary<Damage> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('flip' as const), at: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('insert' as const),
      at: fc.nat(),
      text: fc.constantFrom(
        '--',
        '\r\n',
        '\r\n\r\n',
        'Content-Disposition: form-data; name="file"\r\n',
        '--x--\r\n',
      ),
    }),
    weight: 1,
  },
);

function encode(f: Form): Buffer {
  const cd = f.lowerCaseHeaders ? 'content-disposition' : 'Content-Disposition';
  const ct = f.lowerCaseHeaders ? 'content-type' : 'Content-Type';
  const field = (name: string, value: string) =>
    Buffer.from(`--${f.boundary}\r\n${cd}: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  const file = Buffer.concat([
    Buffer.from(
      `--${f.boundary}\r\n${cd}: form-data; name="file"; filename*=UTF-8''${encodeURIComponent(f.name)}\r\n${ct}: ${f.type}\r\n\r\n`,
    ),
    Buffer.from(f.bytes),
    Buffer.from('\r\n'),
  ]);
  const metadata = f.metadata ? [field('metadata', JSON.stringify(f.metadata))] : [];
  const extras = f.extraFields.map(([name, value]) => field(name, value));
  return Buffer.concat([
    Buffer.from(f.preamble),
    ...(f.metadataFirst ? metadata : []),
    ...extras,
    file,
    ...(f.metadataFirst ? [] : metadata),
    Buffer.from(`--${f.boundary}--\r\n${f.epilogue}`),
  ]);
}

function damaged(body: Buffer, d: Damage): Buffer {
  if (d.kind === 'none') return body;
  const at = d.at % body.length;
  if (d.kind === 'truncate') return body.subarray(0, at);
  if (d.kind === 'flip') {
    const copy = Buffer.from(body);
    copy[at] = (copy[at] as number) ^ 0xff;
    return copy;
  }
  return Buffer.concat([body.subarray(0, at), Buffer.from(d.text), body.subarray(at)]);
}

describe('multipart bodies: stored exactly when whole, refused or stored when damaged', {
  timeout: 300_000,
}, () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_RATE_LIMIT: '100000' });
  });
  after(() => t.close());

  it(`${RUNS} generated bodies (seed ${SEED})`, async () => {
    const counts = { stored: 0, refused: 0, damagedButValid: 0 };
    await fc.assert(
      fc.asyncProperty(form, damage, async (f, d) => {
        const body = damaged(encode(f), d);
        const response = await t.api('/v1/upload', {
          method: 'POST',
          headers: { 'Content-Type': `multipart/form-data; boundary="${f.boundary}"` },
          body: new Uint8Array(body),
        });
        const text = await response.text();
        assert.ok(response.status < 500, `${response.status}: ${text}`);
        if (d.kind === 'none') {
          assert.equal(response.status, 201, text);
        }
        if (response.status !== 201) {
          counts.refused++;
          const error = (JSON.parse(text) as { error: { code: keyof typeof API_ERROR_STATUS } })
            .error;
          assert.equal(API_ERROR_STATUS[error.code], response.status, text);
          return;
        }
        const uploaded = JSON.parse(text) as UploadResponse;
        const served = Buffer.from(await (await fetch(publicUrlOf(uploaded))).arrayBuffer());
        assert.equal(served.length, uploaded.size, 'the record tells the stored size');
        if (d.kind === 'none') {
          counts.stored++;
          assert.ok(served.equals(Buffer.from(f.bytes)), 'the exact bytes');
          // The multipart parser keeps only the last path segment of a filename (a browser
          // never sends a path); the service then cleans it like any name.
          assert.equal(uploaded.name, sanitizeName(f.name.split(/[\\/]/).pop()));
          const record = await json<FileRecord>(await t.api(`/v1/files/${uploaded.id}`));
          assert.deepEqual(record.metadata, f.metadata ?? {});
        } else {
          counts.damagedButValid++;
        }
        assert.equal((await t.api(`/v1/files/${uploaded.id}`, { method: 'DELETE' })).status, 204);
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(`multipart: ${JSON.stringify(counts)}`);
    const left = await json<FileListResponse>(await t.api('/v1/files'));
    assert.deepEqual(left.files, []);
    const deadline = Date.now() + 5000;
    while ((await t.stored()).length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.deepEqual(await t.stored(), []);
  });
});
