// @also-on-node-24: pure JavaScript, no service (npm run test:node24)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { partEtag, putWithFreshUrl, SentBytes } from '../../src/client/part-put.js';
import type { PlannedPart } from '../../src/client/upload-plan.js';

const part = (url: string): PlannedPart => ({
  partNumber: 1,
  size: 5,
  url,
  headers: {},
  etag: null,
});

/** A refusal with a status, as the uploaders' transports report one. */
class Refused extends Error {
  constructor(readonly status: number) {
    super(`refused ${status}`);
  }
}

describe('a part PUT, as both uploaders send it', () => {
  it('reads the ETag from the header every store sends, else from the JSON body', () => {
    assert.equal(partEtag('"h"', { etag: '"b"' }), '"h"');
    assert.equal(partEtag(null, { etag: '"b"' }), '"b"');
    assert.equal(partEtag(null, undefined), null, "S3's empty body and no header");
    assert.equal(partEtag(null, { etag: 3 }), null);
    assert.equal(partEtag('', { etag: '' }), null);
  });

  it('asks for fresh URLs once when the store refuses the URL (403, or no answer), then sends again', async () => {
    for (const status of [403, 0]) {
      const sentTo: string[] = [];
      let asked = 0;
      const state = { refreshed: false };
      const retry = {
        put: async (target: PlannedPart) => {
          sentTo.push(target.url);
          if (target.url === 'old') throw new Refused(status);
          return 'etag';
        },
        statusOf: (error: unknown) => (error instanceof Refused ? error.status : undefined),
        freshPart: async () => {
          asked++;
          return part('fresh');
        },
        state,
      };
      assert.equal(await putWithFreshUrl(part('old'), retry), 'etag');
      assert.deepEqual(sentTo, ['old', 'fresh']);
      assert.equal(asked, 1);
      // The part had its fresh URLs: a second refusal (a later try of it) is final.
      await assert.rejects(putWithFreshUrl(part('old'), retry), Refused);
      assert.equal(asked, 1);
    }
  });

  it('does not ask for fresh URLs for other failures, or once stopped', async () => {
    const stopped = new AbortController();
    stopped.abort();
    for (const [status, signal] of [
      [500, undefined],
      [400, undefined],
      [undefined, undefined],
      [403, stopped.signal],
    ] as const) {
      let asked = 0;
      await assert.rejects(
        putWithFreshUrl(part('old'), {
          put: async () => {
            throw status === undefined ? new Error('read failed') : new Refused(status);
          },
          statusOf: (error) => (error instanceof Refused ? error.status : undefined),
          freshPart: async () => {
            asked++;
            return part('fresh');
          },
          state: { refreshed: false },
          signal,
        }),
      );
      assert.equal(asked, 0, `status ${status}`);
    }
  });

  it('sums the bytes sent over parts, each count replaced as it grows or starts again', () => {
    const sent = new SentBytes<number>();
    assert.equal(sent.total, 0);
    sent.set(1, 5);
    sent.set(2, 3);
    sent.set(2, 4);
    assert.equal(sent.total, 9);
    sent.set(1, 0);
    assert.equal(sent.total, 4, 'a part sent again counts from 0');
  });
});
