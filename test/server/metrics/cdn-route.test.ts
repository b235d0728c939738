import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { cdnRoute } from '../../../src/server/metrics/cdn-traffic.js';

describe("the CDN's route label", () => {
  it('is one of three templates for any URL and method, never a part of the URL', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('GET', 'HEAD', 'POST', 'OPTIONS', 'PROPFIND'),
        fc.string(),
        (method, url) => {
          assert.ok(['/:id', '/:id/*', 'unmatched'].includes(cdnRoute(method, url)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("names the route the CDN's router takes: `/:id`, `/:id/*` or none", () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9_.~%-]{1,40}$/);
    const query = fc.option(fc.stringMatching(/^[a-z0-9=&/]{0,30}$/), { nil: undefined });
    fc.assert(
      fc.property(
        segment,
        fc.array(fc.stringMatching(/^[^/?]{0,20}$/), { maxLength: 3 }),
        query,
        (id, rest, q) => {
          const path = rest.length === 0 ? `/${id}` : `/${id}/${rest.join('/')}`;
          const url = q === undefined ? path : `${path}?${q}`;
          assert.equal(cdnRoute('GET', url), rest.length === 0 ? '/:id' : '/:id/*');
          assert.equal(cdnRoute('HEAD', url), rest.length === 0 ? '/:id' : '/:id/*');
          assert.equal(cdnRoute('DELETE', url), 'unmatched');
        },
      ),
    );
    for (const url of ['/', '/?w=1', '//x', '', 'x'])
      assert.equal(cdnRoute('GET', url), 'unmatched', url);
  });
});
