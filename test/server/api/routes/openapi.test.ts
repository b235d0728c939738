// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import document from '../../../../src/api/openapi.json' with { type: 'json' };
import {
  ALLOWED_ORIGIN,
  json,
  startTestService,
  type TestService,
} from '../../../helpers/service.js';

type Doc = Omit<typeof document, 'paths'> & {
  paths: Record<string, { servers?: { url: string }[] }>;
};

describe('GET /v1/openapi.json', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService();
  });
  after(() => t.close());

  it('answers the document without a key, with this deployment’s API and CDN as servers', async () => {
    const response = await t.api('/v1/openapi.json', { key: null });
    assert.equal(response.headers.get('cache-control'), 'public, max-age=3600');
    const served = await json<Doc>(response);
    assert.deepEqual(served.servers, [{ url: t.apiUrl, description: 'The API' }]);
    for (const [path, item] of Object.entries(served.paths)) {
      const expected = path.startsWith('/v1/')
        ? undefined
        : ['/healthz', '/readyz'].includes(path)
          ? [
              { url: t.apiUrl, description: 'The API' },
              { url: t.cdnUrl, description: 'The CDN' },
            ]
          : [{ url: t.cdnUrl, description: 'The CDN' }];
      assert.deepEqual(item.servers, expected, path);
    }
    // Apart from where it is, the document is the one in the package.
    const strip = (doc: Doc) => ({
      ...doc,
      servers: [],
      paths: Object.fromEntries(
        Object.entries(doc.paths).map(([path, item]) => [path, { ...item, servers: [] }]),
      ),
    });
    assert.deepEqual(strip(served), strip(document as unknown as Doc));
  });

  it('is readable from any page, as other public reads (CORS echoes the Origin)', async () => {
    const response = await t.api('/v1/openapi.json', { key: null, origin: ALLOWED_ORIGIN });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), ALLOWED_ORIGIN);
    assert.equal(response.headers.get('vary'), 'Origin');
    const elsewhere = await t.api('/v1/openapi.json', { key: null, origin: 'http://any.test' });
    assert.equal(elsewhere.status, 200);
    assert.equal(elsewhere.headers.get('access-control-allow-origin'), 'http://any.test');
    await elsewhere.arrayBuffer();
    await response.arrayBuffer();
  });
});
