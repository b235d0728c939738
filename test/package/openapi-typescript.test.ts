import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import document from '../../src/api/openapi.json' with { type: 'json' };

/**
 * The OpenAPI document as a common generator reads it: openapi-typescript (the most used
 * TypeScript one) with its default options. Its `defaultNonNullable` (on by default) makes a
 * property that has a `default` required outside inline request bodies, so a request schema
 * kept in `components` (`SignRequest`, `SignedUrlRequest`) says its defaults in words.
 */

type Json = Record<string, unknown>;
const schemas = (document as unknown as { components: { schemas: Record<string, Json> } })
  .components.schemas;

/** `Key` of `T` may be left out. */
const OPTIONAL_CHECK =
  'type Optional<T, Key extends keyof T> = {} extends Pick<T, Key> ? true : false;';

/**
 * A small client a newcomer writes against the generated types: sign an upload, list files,
 * ask for a signed link. Each body leaves out every field that has a default.
 */
const CLIENT = `import type { components, paths } from './api.js';

type Json<Op> = Op extends { content: { 'application/json': infer Body } } ? Body : never;
type SignBody = Json<paths['/v1/uploads/sign']['post']['requestBody']>;
type SignAnswer = Json<paths['/v1/uploads/sign']['post']['responses'][201]>;
type ListAnswer = Json<paths['/v1/files']['get']['responses'][200]>;
type LinkBody = Json<NonNullable<paths['/v1/files/{id}/signed-url']['post']['requestBody']>>;

export class TypedClient {
  constructor(
    private readonly endpoint: string,
    private readonly key: string,
  ) {}

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(new URL(path, this.endpoint), {
      method,
      headers: { authorization: \`Bearer \${this.key}\`, 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    if (!response.ok) {
      const error = (await response.json()) as components['schemas']['Error'];
      throw new Error(\`\${error.error.code}: \${error.error.message}\`);
    }
    return (await response.json()) as T;
  }

  sign(body: SignBody): Promise<SignAnswer> {
    return this.#call('POST', '/v1/uploads/sign', body);
  }

  list(): Promise<ListAnswer> {
    return this.#call('GET', '/v1/files');
  }

  link(id: string, body: LinkBody): Promise<Json<paths['/v1/files/{id}/signed-url']['post']['responses'][200]>> {
    return this.#call('POST', \`/v1/files/\${encodeURIComponent(id)}/signed-url\`, body);
  }
}

export async function example(client: TypedClient): Promise<string> {
  const signed = await client.sign({ name: 'a.txt', size: 3 });
  const page = await client.list();
  const first = page.files[0];
  const link = first ? await client.link(first.id, {}) : null;
  // One file signed answers its upload; a batch (\`files\`) answers \`uploads\`.
  const id = 'uploads' in signed ? signed.uploads[0]?.id : signed.id;
  return [id ?? '', link?.url ?? ''].join(' ');
}
`;

/** One line per optional property of every schema: a compile error names the first wrong one. */
function optionalChecks(): string {
  const lines: string[] = [];
  for (const [name, schema] of Object.entries(schemas)) {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const key of Object.keys((schema.properties as Json | undefined) ?? {})) {
      if (required.has(key)) continue;
      const type = `components['schemas'][${JSON.stringify(name)}]`;
      lines.push(
        `export const ${name}_${key.replace(/\W/g, '_')}: Optional<${type}, ${JSON.stringify(key)}> = true;`,
      );
    }
  }
  return lines.join('\n');
}

function compile(dir: string, files: string[]): string[] {
  const program = ts.createProgram(
    files.map((file) => join(dir, file)),
    {
      strict: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      noEmit: true,
    },
  );
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('openapi-typescript with its default options', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-openapi-ts-'));
    const types = astToString(await openapiTS(document as never));
    await writeFile(join(dir, 'package.json'), '{"type":"module"}');
    await writeFile(join(dir, 'api.ts'), types);
    await writeFile(join(dir, 'client.ts'), CLIENT);
    await writeFile(
      join(dir, 'optional.ts'),
      `import type { components } from './api.js';\n${OPTIONAL_CHECK}\n${optionalChecks()}\n`,
    );
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('makes every property the document does not require optional (defaults included)', () => {
    assert.ok(optionalChecks().split('\n').length > 20, 'the document has optional properties');
    assert.deepEqual(compile(dir, ['optional.ts']), []);
  });

  it('gives types a small client compiles against under strict, leaving defaults out', () => {
    assert.deepEqual(compile(dir, ['client.ts']), []);
  });
});
