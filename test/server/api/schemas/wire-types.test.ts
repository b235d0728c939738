import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import ts from 'typescript';
import * as components from '../../../../src/server/api/schemas/components.js';
import { nameOf } from '../../../../src/server/api/schemas/kit.js';
import { WIRE_TYPES_FILE, wireTypesText } from '../../../../src/server/api/schemas/wire-types.js';

describe('the wire types generated from the route schemas', () => {
  it('are what src/api/wire.generated.ts holds (else: npm run openapi)', async () => {
    const kept = await readFile(WIRE_TYPES_FILE, 'utf8');
    assert.ok(kept === wireTypesText(), `${WIRE_TYPES_FILE} is stale: run \`npm run openapi\``);
  });

  it('say they are generated, and from where', () => {
    assert.match(
      wireTypesText(),
      /^\/\*\*\n \* Generated from the route schemas in src\/server\/api\/schemas\//,
    );
  });

  it('are plain TypeScript: they import nothing, so a package carries them without TypeBox', () => {
    const source = ts.createSourceFile('wire.ts', wireTypesText(), ts.ScriptTarget.ES2022);
    const statements = source.statements.map((statement) => ts.SyntaxKind[statement.kind]);
    assert.deepEqual([...new Set(statements)].sort(), [
      'InterfaceDeclaration',
      'TypeAliasDeclaration',
    ]);
  });

  it('export one type for each named schema that is more than a bare string or number', () => {
    const exported = new Set(
      [...wireTypesText().matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]),
    );
    const named = Object.values(components)
      .map((schema) => ({ name: nameOf(schema), schema: schema as { type?: unknown } }))
      .filter((entry) => entry.name !== undefined);
    for (const { name, schema } of named) {
      const bare = ['string', 'integer', 'number', 'boolean'].includes(schema.type as string);
      assert.equal(exported.has(name), !bare || 'enum' in schema, name);
    }
  });
});
