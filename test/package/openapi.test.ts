import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import type { FastifyInstance } from 'fastify';
import { PART_CHECKSUMS } from '../../src/api/checksum.js';
import { API_ERROR_STATUS, type ApiErrorCode } from '../../src/api/errors.js';
import { EVENT_TYPES, MAX_WEBHOOKS } from '../../src/api/events.js';
import {
  LIST_DEFAULT_LIMIT,
  LIST_MAX_LIMIT,
  MAX_BATCH,
  MAX_ONE_REQUEST_BYTES,
  MAX_PARTS,
  METADATA_MAX_KEY_LENGTH,
  METADATA_MAX_KEYS,
  METADATA_MAX_VALUE_LENGTH,
  MIN_PART_SIZE,
  NAME_MAX_BYTES,
  PLAN_SIGN_CAP,
} from '../../src/api/limits.js';
import document from '../../src/api/openapi.json' with { type: 'json' };
import { CURSOR_PATTERN, ID_PATTERN } from '../../src/api/routes.js';
import { buildApiApp } from '../../src/server/api/app.js';
import { buildCdnApp } from '../../src/server/cdn/cdn.js';
import { contractViolations, type Exchange, errorCodesOf } from '../helpers/openapi-contract.js';
import { startTestService, type TestService } from '../helpers/service.js';

type Json = Record<string, unknown>;
const doc = document as unknown as Json;
const components = doc.components as Record<string, Record<string, Json>>;
const parameters = components.parameters as Record<string, Json>;
const schema = (name: string) => components.schemas?.[name] as Json;
const property = (name: string, key: string) => (schema(name).properties as Json)[key] as Json;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** `METHOD path` of every operation the document has, in Fastify's path syntax. */
function documentedRoutes(cdn: boolean): Set<string> {
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
    // A path names the servers that answer it: the CDN's, both (health), or none (the API).
    const urls =
      'servers' in item ? (item.servers as Array<{ url: string }>).map((s) => s.url) : [];
    const served = cdn ? urls.includes('{cdnUrl}') : urls.length === 0 || urls.includes('{apiUrl}');
    if (!served) continue;
    for (const method of HTTP_METHODS) {
      // The preflight is the API's (`OPTIONS *`); the CDN's answers need none.
      if (cdn && method === 'options') continue;
      if (method in item)
        routes.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`);
    }
  }
  return routes;
}

/**
 * The routes a Fastify app has registered, from its own `printRoutes` tree: each line is
 * a node whose text continues its parent's path (`│   ├── /:id (GET, HEAD)`).
 */
function registeredRoutes(app: FastifyInstance): Set<string> {
  const routes = new Set<string>();
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] as string).length / 4;
    const path = (prefixes[depth - 1] ?? '') + (match[2] as string);
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    for (const method of match[3]?.split(', ') ?? []) routes.add(`${method} ${path}`);
  }
  return routes;
}

describe('the OpenAPI document (src/api/openapi.json)', () => {
  it('is valid OpenAPI 3.1, by the meta-schema and the parser’s own checks', async () => {
    assert.match(document.openapi, /^3\.1\.\d+$/);
    const result = await validate(structuredClone(doc) as never);
    assert.deepEqual(result, { valid: true, warnings: [], specification: 'OpenAPI' });
  });

  it('is refused by that validator when it breaks the meta-schema (the lint bites)', async () => {
    const broken = structuredClone(doc) as { paths: Record<string, Json> };
    (broken.paths['/v1/files'] as { get: Json }).get.responses = 'none';
    const result = await validate(broken as never);
    assert.equal(result.valid, false);
  });

  it('keeps its limits equal to the constants the service and the client use', () => {
    const limit = (parameters.Limit as { schema: Json }).schema;
    assert.equal(limit.maximum, LIST_MAX_LIMIT);
    assert.equal(limit.default, LIST_DEFAULT_LIMIT);
    const metadata = schema('Metadata');
    assert.equal(metadata.maxProperties, METADATA_MAX_KEYS);
    assert.equal((metadata.propertyNames as Json).maxLength, METADATA_MAX_KEY_LENGTH);
    assert.equal((metadata.additionalProperties as Json).maxLength, METADATA_MAX_VALUE_LENGTH);
    // A name of 255 UTF-8 bytes has at most 255 characters, what JSON Schema can count.
    assert.equal(schema('FileName').maxLength, NAME_MAX_BYTES);
    assert.equal(
      property('SignRequest', 'size').maximum,
      Math.max(...Object.values(PLAN_SIGN_CAP)),
    );
    assert.equal(property('FileRecord', 'size').maximum, PLAN_SIGN_CAP.paid);
    assert.equal(property('UploadResponse', 'size').maximum, MAX_ONE_REQUEST_BYTES);
    for (const [name, key] of [
      ['SignBatchRequest', 'files'],
      ['SignBatchResponse', 'uploads'],
      ['CompleteBatchRequest', 'uploads'],
      ['CompleteBatchResponse', 'results'],
    ] as const) {
      assert.equal(property(name, key).maxItems, MAX_BATCH, `${name}.${key}`);
      assert.equal(property(name, key).minItems, 1, `${name}.${key}`);
    }
    assert.equal(schema('PartNumber').maximum, MAX_PARTS);
    assert.equal(property('SignResponse', 'parts').maxItems, MAX_PARTS);
    assert.equal(property('UploadState', 'parts').maxItems, MAX_PARTS);
    assert.equal(property('SignResponse', 'partSize').minimum, MIN_PART_SIZE);
    assert.equal(property('UploadState', 'partSize').minimum, MIN_PART_SIZE);
    assert.equal(property('FileListResponse', 'files').maxItems, LIST_MAX_LIMIT);
    assert.equal(property('EventListResponse', 'events').maxItems, LIST_MAX_LIMIT);
    assert.equal(property('WebhookListResponse', 'webhooks').maxItems, MAX_WEBHOOKS);
    assert.deepEqual(schema('EventType').enum, [...EVENT_TYPES]);
    assert.deepEqual(Object.keys(doc.webhooks as Json), [...EVENT_TYPES]);
    assert.deepEqual(schema('PartChecksum').enum, [...PART_CHECKSUMS, null]);
    assert.equal(schema('Id').pattern, ID_PATTERN.source);
    // The cursor the document allows is the one the service reads (or empty: the first page).
    const cursor = (parameters.Cursor as { schema: Json }).schema.pattern as string;
    assert.equal(cursor, `^(|${CURSOR_PATTERN.source.slice(1, -1).replace(/[()]/g, '')})$`);
  });

  it('has every error code of the service, in one response per status, and only there', () => {
    assert.deepEqual(
      [...(schema('ErrorCode').enum as string[])].sort(),
      Object.keys(API_ERROR_STATUS).sort(),
    );
    const codesOf = (status: number) =>
      Object.entries(API_ERROR_STATUS)
        .filter(([, each]) => each === status)
        .map(([code]) => code)
        .sort();
    const whole = new Map<number, string>();
    for (const [name, response] of Object.entries(components.responses ?? {})) {
      const codes = errorCodesOf(response);
      if (!codes) continue;
      // Every error response is of one status: its codes are that status's (or some of them).
      const status = API_ERROR_STATUS[codes[0] as ApiErrorCode];
      for (const code of codes) assert.equal(API_ERROR_STATUS[code], status, `${name}: ${code}`);
      assert.ok(String(response.description).startsWith(`${status}:`), name);
      // The CDN's 404 is the general one with the CDN's headers.
      if (codes.length < codesOf(status).length || name === 'CdnNotFound') continue;
      assert.ok(!whole.has(status), `two responses with every code of ${status}`);
      whole.set(status, name);
    }
    assert.deepEqual(
      [...whole.keys()].sort(),
      [...new Set(Object.values(API_ERROR_STATUS))].sort(),
      'one response with every code of each status',
    );
    // And every status an operation answers is one of the table's (or a success).
    for (const [path, item] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const method of HTTP_METHODS) {
        const responses = (item[method] as { responses?: Json } | undefined)?.responses ?? {};
        for (const status of Object.keys(responses).map(Number)) {
          // tus's own statuses, each with a code of the table (decisions.md, "tus"): 412
          // for another protocol version, 460 for a checksum that does not match.
          const tusOwn = path.startsWith('/v1/tus') && (status === 412 || status === 460);
          if (status >= 400 && status !== 416 && !tusOwn) {
            assert.ok(whole.has(status), `${method} ${path}: ${status} is not in the table`);
          }
        }
      }
    }
  });

  describe('routes, read from the running apps', () => {
    let t: TestService;
    let api: FastifyInstance;
    let cdn: FastifyInstance;
    before(async () => {
      // The embedded deployment: it has every route (the local part routes too).
      t = await startTestService();
      api = await buildApiApp(t.service.context);
      cdn = buildCdnApp(t.service.context);
      await Promise.all([api.ready(), cdn.ready()]);
    });
    after(async () => {
      await Promise.all([api.close(), cdn.close()]);
      await t.close();
    });

    it('documents every route the API registers, and no path it does not have', () => {
      const registered = registeredRoutes(api);
      const documented = documentedRoutes(false);
      assert.ok(registered.has('POST /v1/upload'), [...registered].join('\n'));
      for (const route of registered) {
        const [method, path] = route.split(' ') as [string, string];
        // Fastify answers HEAD for each GET route (exposeHeadRoutes): HTTP's own HEAD.
        if (method === 'HEAD' && registered.has(`GET ${path}`)) continue;
        if (route === 'OPTIONS *') {
          // The preflight answers on any path: every documented path has it.
          for (const [each, item] of Object.entries(doc.paths as Record<string, Json>)) {
            const urls = ((item.servers ?? []) as Array<{ url: string }>).map((s) => s.url);
            if (urls.length === 0 || urls.includes('{apiUrl}')) {
              assert.ok('options' in item, `OPTIONS ${each}`);
            }
          }
          continue;
        }
        assert.ok(documented.has(route), `${route} is registered but not documented`);
      }
      for (const route of documented) {
        const [method, path] = route.split(' ') as [string, string];
        const url = path.replace(/:(\w+)/g, 'x');
        assert.ok(
          api.hasRoute({ method, url: path }) ||
            (method === 'OPTIONS' && registered.has('OPTIONS *')),
          `${route} is documented but not registered (${url})`,
        );
      }
    });

    it('documents every route the CDN registers, and no path it does not have', () => {
      const registered = [...registeredRoutes(cdn)].map((route) =>
        route.replace(/\/?\*$/, '/:name'),
      );
      assert.deepEqual(registered.sort(), [...documentedRoutes(true)].sort());
    });

    it('answers the documented preflight on every API path, and HEAD on both CDN paths', async () => {
      // Each exchange is checked against the document by the test service's contract check.
      for (const route of documentedRoutes(false)) {
        const [method, path] = route.split(' ') as [string, string];
        if (method !== 'OPTIONS') continue;
        const response = await t.api(path.replace(/:(\w+)/g, 'x1'), {
          method,
          key: null,
          origin: 'http://any.test',
        });
        assert.equal(response.status, 204, path);
      }
      const file = (await (
        await t.api('/v1/upload', {
          method: 'POST',
          body: 'head',
          headers: { 'X-Filename': 'a.txt' },
        })
      ).json()) as { id: string; url: string };
      for (const url of [`${t.cdnUrl}/${file.id}`, file.url]) {
        const response = await fetch(url, { method: 'HEAD' });
        assert.equal(response.status, 200, url);
        assert.equal(response.headers.get('content-length'), '4');
      }
    });
  });

  it('is shipped in the package as filehost/openapi.json', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as {
      exports: Record<string, unknown>;
      files: string[];
    };
    const target = pkg.exports['./openapi.json'];
    assert.equal(target, './src/api/openapi.json');
    assert.ok(existsSync(target as string));
    assert.ok(
      pkg.files.some(
        (entry) => target === `./${entry}` || (target as string).startsWith(`./${entry}/`),
      ),
    );
  });
});

describe('the contract check of test exchanges (test/helpers/openapi-contract.ts)', () => {
  const exchange = (over: Partial<Exchange>): Exchange => ({
    server: 'api',
    method: 'GET',
    url: new URL('http://127.0.0.1:1/v1/files'),
    requestHeaders: new Headers({ Authorization: 'Bearer sk_live_x' }),
    requestBody: undefined,
    status: 200,
    responseHeaders: new Headers({
      'content-type': 'application/json; charset=utf-8',
      'x-request-id': '0b4f3c1e-5d6a-4e7b-8c9d-0a1b2c3d4e5f',
    }),
    responseBody: JSON.stringify({ files: [], nextCursor: null }),
    ...over,
  });

  it('passes an answer as documented', () => {
    assert.deepEqual(contractViolations(exchange({})), []);
  });

  it('fails an undocumented status, a body off its schema, and a code of another status', () => {
    assert.equal(contractViolations(exchange({ status: 201 })).length, 1);
    assert.match(
      contractViolations(exchange({ responseBody: JSON.stringify({ files: [] }) })).join(),
      /nextCursor/,
    );
    const error = (code: string) => JSON.stringify({ error: { code, message: 'm' } });
    assert.deepEqual(
      contractViolations(exchange({ status: 400, responseBody: error('invalid_request') })),
      [],
    );
    assert.notDeepEqual(
      contractViolations(exchange({ status: 400, responseBody: error('not_found') })),
      [],
    );
  });

  it('fails a request outside the document only when the service accepted it', () => {
    const keyless = { requestHeaders: new Headers() };
    assert.match(contractViolations(exchange(keyless)).join(), /Authorization/);
    const refused = JSON.stringify({ error: { code: 'missing_auth', message: 'm' } });
    assert.deepEqual(
      contractViolations(exchange({ ...keyless, status: 401, responseBody: refused })),
      [],
    );
    const url = new URL('http://127.0.0.1:1/v1/files?limit=500');
    assert.match(contractViolations(exchange({ url })).join(), /limit/);
  });

  it('holds unknown routes to the documented errors', () => {
    const url = new URL('http://127.0.0.1:1/v2/nothing');
    const notFound = JSON.stringify({ error: { code: 'not_found', message: 'No route.' } });
    assert.deepEqual(
      contractViolations(exchange({ url, status: 404, responseBody: notFound })),
      [],
    );
    assert.notDeepEqual(contractViolations(exchange({ url, status: 200 })), []);
  });
});
