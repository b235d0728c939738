import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiRoutes,
  cdnRoutes,
  declaredRoute,
  fastifyPath,
  LOCAL_PART_OPERATIONS,
} from '../../../src/server/contract-reader/contract.js';
import { SHARED_PART_PATH } from '../../../src/server/storage/local-disk/part-signer.js';

describe('the routes as the running service reads them from the generated document', () => {
  it("routes the CDN's declared paths, the name taking the rest of the path", () => {
    const routes = cdnRoutes().map(({ method, url, operationId }) => [method, url, operationId]);
    assert.deepEqual(routes.sort(), [
      ['GET', '/:id', 'serveFile'],
      ['GET', '/:id/*', 'serveFileNamed'],
      ['HEAD', '/:id', 'headFile'],
      ['HEAD', '/:id/*', 'headFileNamed'],
    ]);
    // The CDN checks its ids itself (its own 404): no path check is handed to Fastify.
    assert.deepEqual(
      cdnRoutes().map((route) => route.schema.params?.properties.id?.pattern),
      [undefined, undefined, undefined, undefined],
    );
  });

  it('routes the shared part PUT at the URL the local store signs', () => {
    const route = declaredRoute('putPart');
    assert.equal(route.method, 'PUT');
    assert.equal(route.url, SHARED_PART_PATH);
    assert.equal(declaredRoute('putPartAtItsUrl').url, '/v1/uploads/:id/parts/:partNumber');
  });

  it("leaves the CDN's and the local store's routes out of the API app's", () => {
    const api = apiRoutes().map((route) => route.operationId);
    for (const route of cdnRoutes()) assert.ok(!api.includes(route.operationId as never));
    for (const id of LOCAL_PART_OPERATIONS) assert.ok(!api.includes(id as never));
    assert.ok(api.includes('signUpload'));
    assert.equal(new Set(api).size, api.length);
  });

  it('spells a path template as Fastify does', () => {
    assert.equal(fastifyPath('/v1/files/{id}'), '/v1/files/:id');
    const rest = { name: 'name', in: 'path', schema: {}, 'x-rest-of-path': true };
    assert.equal(fastifyPath('/{id}/{name}', [rest]), '/:id/*');
  });
});
