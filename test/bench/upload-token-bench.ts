/**
 * `npm run bench:upload-tokens`: what an upload token and the anonymous caps cost the
 * service, in one run against its own contenders. 200 x 20 KiB go through the multi-step
 * flow as the element sends them (two batch signs of 100, the parts 6 at a time, two batch
 * completes), signed with (A) the secret key: the project's quota alone, as before tokens;
 * (B) the publishable key: the project's quota and the anonymous caps (per address and in
 * all) summed at every sign; (C) an upload token with maxFiles and maxBytes: the project's
 * quota and the token's files summed at every sign. Rounds alternate A, B, C; medians and
 * the ratios B/A and C/A are reported.
 *
 * `FILEHOST_TEST_DEPLOYMENT=scale` runs it on PostgreSQL + S3 (the bench starts both).
 */
import type {
  CompleteBatchResponse,
  SignBatchResponse,
  SignResponse,
  UploadTokenResponse,
} from '../../src/api/types.js';
import { ALLOWED_ORIGIN, json, patternBytes, startTestService } from '../helpers/service.js';
import { median } from './support.js';

const FILES = Number(process.env.BENCH_FILES ?? 200);
const SIZE = Number(process.env.BENCH_SIZE ?? 20 * 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PUT_CONCURRENCY = 6;

interface Phases {
  sign: number;
  put: number;
  complete: number;
  whole: number;
}

async function main(): Promise<void> {
  const t = await startTestService({ FILEHOST_RATE_LIMIT: '1000000' });
  try {
    const bytes = patternBytes(SIZE, 5);
    /** One round's times: sign, PUT and complete phases, and the whole. */
    const round = async (init: { key: string; origin?: string }): Promise<Phases> => {
      const started = performance.now();
      const signed: SignResponse[] = [];
      for (let offset = 0; offset < FILES; offset += 100) {
        const files = Array.from({ length: Math.min(100, FILES - offset) }, (_, index) => ({
          name: `f${offset + index}.bin`,
          size: SIZE,
          type: 'application/octet-stream',
        }));
        signed.push(...(await json<SignBatchResponse>(await t.signMany(files, init), 201)).uploads);
      }
      const signedAt = performance.now();
      let next = 0;
      const etags = new Map<string, string>();
      await Promise.all(
        Array.from({ length: PUT_CONCURRENCY }, async () => {
          while (next < signed.length) {
            const upload = signed[next++] as SignResponse;
            const part = upload.parts[0] as SignResponse['parts'][number];
            const answer = await t.putPart(part, bytes);
            await answer.arrayBuffer();
            if (answer.status !== 200) throw new Error(`part PUT answered ${answer.status}`);
            etags.set(upload.id, answer.headers.get('etag') ?? '');
          }
        }),
      );
      const putAt = performance.now();
      for (let offset = 0; offset < signed.length; offset += 100) {
        const uploads = signed.slice(offset, offset + 100).map((upload) => ({
          id: upload.id,
          uploadToken: upload.uploadToken,
          parts: [{ partNumber: 1, etag: etags.get(upload.id) ?? '' }],
        }));
        const done = await json<CompleteBatchResponse>(await t.completeMany(uploads, init));
        if (done.results.some((result) => !result.file)) throw new Error('a complete failed');
      }
      const done = performance.now();
      return {
        sign: signedAt - started,
        put: putAt - signedAt,
        complete: done - putAt,
        whole: done - started,
      };
    };
    const mint = async () =>
      (
        await json<UploadTokenResponse>(
          await t.api('/v1/upload-tokens', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ maxFiles: FILES, maxBytes: FILES * SIZE }),
          }),
          201,
        )
      ).token;
    const sides = {
      secret: () => ({ key: t.secretKey }),
      publishable: () => ({ key: t.publishableKey, origin: ALLOWED_ORIGIN }),
      token: async () => ({ key: await mint() }),
    };
    type Side = keyof typeof sides;
    const order: Side[] = ['secret', 'publishable', 'token'];
    const times: Record<Side, Phases[]> = { secret: [], publishable: [], token: [] };
    // One warm-up round of each, not counted.
    for (const side of order) await round(await sides[side]());
    // The order turns each round (A B C, B C A, C A B), so that a drift of the machine's
    // load does not fall on one side.
    for (let index = 0; index < ROUNDS; index++) {
      for (let turn = 0; turn < order.length; turn++) {
        const side = order[(index + turn) % order.length] as Side;
        times[side].push(await round(await sides[side]()));
      }
    }
    const phase = (side: Side, name: keyof Phases) => median(times[side].map((each) => each[name]));
    const lines = [
      `${FILES} x ${SIZE} B, ${ROUNDS} rounds each (${process.env.FILEHOST_TEST_DEPLOYMENT ?? 'embedded'}); medians in ms`,
      'side               sign   put  complete  whole  whole/A',
    ];
    for (const [label, side] of [
      ['A secret key     ', 'secret'],
      ['B publishable key', 'publishable'],
      ['C upload token   ', 'token'],
    ] as const) {
      const cells = (['sign', 'put', 'complete', 'whole'] as const).map((name) =>
        String(Math.round(phase(side, name))).padStart(5),
      );
      const ratio = (phase(side, 'whole') / phase('secret', 'whole')).toFixed(3);
      lines.push(`${label}  ${cells.join(' ')}  ${ratio}`);
    }
    console.log(lines.join('\n'));
  } finally {
    await t.close();
  }
}

await main();
