import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiRoutes,
  BOTH_ORIGINS_OPERATIONS,
  cdnRoutes,
  declaredRoute,
  fastifyPath,
  LOCAL_PART_OPERATIONS,
  TUS_OPERATIONS,
} from '../../../src/server/contract-reader/contract.js';
import { SHARED_PART_PATH } from '../../../src/server/storage/local-disk/part-signer.js';

describe('the routes as the running service reads them from the generated document', () => {
  it("routes the CDN's declared paths, the name taking the rest of the path", () => {
    const routes = cdnRoutes().map(({ method, url, operationId }) => [method, url, operationId]);
    assert.deepEqual(routes.sort(), [
      ['GET', '/:id', 'serveFile'],
      ['GET', '/:id/*', 'serveFileNamed'],
      ['GET', '/healthz', 'healthz'],
      ['GET', '/readyz', 'readyz'],
      ['HEAD', '/:id', 'headFile'],
      ['HEAD', '/:id/*', 'headFileNamed'],
    ]);
    // The CDN checks its ids itself (its own 404): no path check is handed to Fastify.
    assert.deepEqual(
      cdnRoutes().map((route) => route.schema.params?.properties.id?.pattern),
      cdnRoutes().map(() => undefined),
    );
  });

  it('routes the shared part PUT at the URL the local store signs', () => {
    const route = declaredRoute('putPart');
    assert.equal(route.method, 'PUT');
    assert.equal(route.url, SHARED_PART_PATH);
    assert.equal(declaredRoute('putPartAtItsUrl').url, '/v1/uploads/:id/parts/:partNumber');
  });

  it("leaves the CDN's own, the local store's and tus's routes out of the API app's", () => {
    const api: string[] = apiRoutes().map((route) => route.operationId);
    const bothOrigins: readonly string[] = BOTH_ORIGINS_OPERATIONS;
    for (const route of cdnRoutes()) {
      assert.equal(api.includes(route.operationId), bothOrigins.includes(route.operationId));
    }
    // Health is declared for both origins: the API app answers it as well as the CDN.
    for (const id of BOTH_ORIGINS_OPERATIONS) assert.ok(api.includes(id), id);
    for (const id of LOCAL_PART_OPERATIONS) assert.ok(!api.includes(id), id);
    for (const id of TUS_OPERATIONS) assert.ok(!api.includes(id), id);
    assert.ok(api.includes('signUpload'));
    assert.equal(new Set(api).size, api.length);
  });

  it("reads tus's PATCH from the document, as tus/tus-routes.ts routes it", () => {
    const patch = declaredRoute('tusPatch');
    assert.equal(patch.method, 'PATCH');
    assert.equal(patch.url, '/v1/tus/:id/:secret');
  });

  it('spells a path template as Fastify does', () => {
    assert.equal(fastifyPath('/v1/files/{id}'), '/v1/files/:id');
    const rest = { name: 'name', in: 'path', schema: {}, 'x-rest-of-path': true };
    assert.equal(fastifyPath('/{id}/{name}', [rest]), '/:id/*');
  });
});
