import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { handleErrors } from '../../src/server/api/app.js';
import { enterRoute } from '../../src/server/api/route-input.js';
import { pathItemJson } from '../../src/server/contract/openapi.js';
import { declaredRoutes, fastifyRoute } from '../../src/server/contract-reader/contract.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { RENAME_EXAMPLE, RENAME_EXAMPLE_ENTRY } from './endpoint-example.js';

/**
 * The example of docs/development.md, "Adding an endpoint", mounted as the API mounts its
 * routes (its declaration read as the document would hold it, the table's entry, its
 * handler) on an app of its own beside a real service, whose keys and database it uses.
 */
describe('the endpoint example of docs/development.md', () => {
  let t: TestService;
  let app: FastifyInstance;
  let url: string;
  before(async () => {
    t = await startTestService();
    app = Fastify();
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));
    const [route] = declaredRoutes({ [RENAME_EXAMPLE.path]: pathItemJson(RENAME_EXAMPLE) });
    assert.ok(route);
    app.route({
      ...fastifyRoute(route),
      handler: enterRoute(t.service.context, route, RENAME_EXAMPLE_ENTRY),
    });
    handleErrors(app);
    url = `${await app.listen({ host: '127.0.0.1', port: 0 })}${RENAME_EXAMPLE.path}`;
  });
  after(async () => {
    await app.close();
    await t.close();
  });

  const post = (body: string, key: string | null = t.secretKey) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
      },
      body,
    });

  it('answers a body of its declared form, for the caller the table authenticated', async () => {
    const answer = await json<{ greeting: string }>(await post('{"name":"Ada"}'));
    assert.match(answer.greeting, /^Hello, Ada, from project \S+\.$/);
  });

  it('refuses what its declaration does not accept, before the handler runs', async () => {
    await expectError(await post('{"name":""}'), 400, 'invalid_request');
    await expectError(await post('{"name":"Ada","extra":1}'), 400, 'invalid_request');
    await expectError(await post('[]'), 400, 'invalid_request');
    await expectError(await post(''), 400, 'invalid_request');
  });

  it('authenticates first: no key, or a publishable one, never reaches the body', async () => {
    await expectError(await post('{"name":""}', null), 401, 'missing_auth');
    const publishable = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${t.publishableKey}`, Origin: ALLOWED_ORIGIN },
      body: '{"name":""}',
    });
    await expectError(publishable, 403, 'secret_key_required');
  });
});
