import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UploadResponse, Usage } from '../../../src/api/types.js';
import { noiseJpeg } from '../../helpers/images.js';
import { type Instances, missingScaleServers, startInstances } from '../../helpers/instances.js';
import { publicUrlOf } from '../../helpers/public-url.js';
import { expectError, json } from '../../helpers/service.js';

const skip = (await missingScaleServers()) ?? undefined;

const QUOTA = 50_000_000;
/** The default project's variant budget: a tenth of its quota. */
const BUDGET = QUOTA / 10;

/**
 * The variant budget held by the database, not by an instance: two instances as processes of
 * their own on one PostgreSQL database and one bucket, each making half of a burst.
 */
describe('image variants within one budget across instances (PostgreSQL + S3)', { skip }, () => {
  let scale: Instances;
  before(async () => {
    scale = await startInstances({ FILEHOST_STORAGE_QUOTA: String(QUOTA) });
  });
  after(() => scale?.stop());

  const secret = () => ({ Authorization: `Bearer ${scale.env.FILEHOST_SECRET_KEY}` });
  const usage = async () =>
    json<Usage>(await fetch(`${scale.nginx.apiUrl}/v1/usage`, { headers: secret() }));

  it('keeps variantBytes within the budget while both instances make 24 PNG variants at once, and the bucket holds what is counted', async () => {
    const original = await noiseJpeg(1240, 930, 85);
    const file = await json<UploadResponse>(
      await fetch(`${scale.nginx.apiUrl}/v1/upload`, {
        method: 'POST',
        headers: { ...secret(), 'Content-Type': 'image/jpeg', 'X-Filename': 'noise.jpg' },
        body: new Uint8Array(original),
      }),
      201,
    );
    const path = new URL(publicUrlOf(file)).pathname;
    const queries = [
      ...[16, 32, 48, 64, 96, 128, 256, 384, 640, 750, 828, 1080, 1200, 1920].map((w) => `w=${w}`),
      ...[384, 640, 750, 828, 1080].flatMap((w) => [256, 640].map((h) => `w=${w}&h=${h}&fit=fill`)),
    ].map((query) => `${query}&format=png`);
    let highest = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        highest = Math.max(highest, (await usage()).variantBytes);
        await sleep(20);
      }
    })();
    // Every other request to the other instance, each straight to its CDN.
    const answers = await Promise.all(
      queries.map(async (query, index) => {
        const url = `${scale.directCdn(index % 2)}${path}?${query}`;
        for (;;) {
          const response = await fetch(url);
          if (response.status === 503) {
            await expectError(response, 503, 'unavailable');
            await sleep(200);
            continue;
          }
          assert.equal(response.status, 200, query);
          const etag = response.headers.get('etag') as string;
          const size = (await response.arrayBuffer()).byteLength;
          return { name: etag.slice(file.id.length + 2, -1), size };
        }
      }),
    );
    sampling = false;
    await sampler;
    const made = answers.reduce((sum, answer) => sum + answer.size, 0);
    assert.ok(made > 3 * BUDGET, `the burst made ${made} bytes`);
    const counted = (await usage()).variantBytes;
    assert.ok(highest <= BUDGET, `variantBytes reached ${highest} of ${BUDGET}`);
    assert.ok(counted <= BUDGET && counted > BUDGET / 2, `${counted} of ${BUDGET}`);
    // The bucket holds exactly the variants counted: the evicted ones' objects are gone.
    const sizes = new Map(answers.map((answer) => [answer.name, answer.size]));
    const stored = (await scale.stored())
      .filter((key) => key.includes(`derived/${file.id}/`))
      .map((key) => key.split('/').at(-1) as string);
    assert.equal(
      stored.reduce((sum, name) => sum + (sizes.get(name) ?? Number.NaN), 0),
      counted,
      `stored: ${stored.join(', ')}`,
    );
  });
});
