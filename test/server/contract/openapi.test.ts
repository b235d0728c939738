import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import {
  buildOpenApiDocument,
  OPENAPI_FILE,
  openApiText,
} from '../../../src/server/contract/openapi.js';

describe('the OpenAPI document generated from the route schemas', () => {
  it('is what src/api/openapi.json holds (else: npm run openapi)', async () => {
    const kept = await readFile(OPENAPI_FILE, 'utf8');
    assert.ok(kept === openApiText(), `${OPENAPI_FILE} is stale: run \`npm run openapi\``);
  });

  it('says it is generated, and from where', () => {
    assert.match(String(buildOpenApiDocument()['x-generated']), /src\/server\/api\/schemas\//);
  });

  it('names each schema once: every $ref to a schema resolves, every schema is used', () => {
    const document = buildOpenApiDocument();
    const text = JSON.stringify(document);
    const components = document.components as { schemas: Record<string, unknown> };
    const referenced = new Set(
      [...text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1] as string),
    );
    for (const name of referenced) assert.ok(name in components.schemas, `no schema ${name}`);
    for (const name of Object.keys(components.schemas)) {
      assert.ok(referenced.has(name), `schema ${name} is declared but used nowhere`);
    }
  });
});
