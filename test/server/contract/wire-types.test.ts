import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import * as components from '../../../src/server/contract/components.js';
import { nameOf } from '../../../src/server/contract/kit.js';
import { WIRE_TYPES_FILE, wireTypesText } from '../../../src/server/contract/wire-types.js';

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

  it('export one type for each named schema that is more than a bare string or number, by the name it is exported as', () => {
    const exported = new Set(
      [...wireTypesText().matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]),
    );
    for (const [name, schema] of Object.entries(components) as [string, { type?: unknown }][]) {
      if (!nameOf(schema)) continue;
      const bare = ['string', 'integer', 'number', 'boolean'].includes(schema.type as string);
      assert.equal(exported.has(name), !bare || 'enum' in schema, name);
    }
  });

  it('mean what the schemas mean: each is the TypeBox static type of its schema', () => {
    const exported = [...wireTypesText().matchAll(/^export (?:interface|type) (\w+)/gm)].map(
      (match) => match[1] as string,
    );
    assert.ok(exported.length > 40, `only ${exported.length} types`);
    const diagnostics = compileAgreement(exported);
    assert.deepEqual(diagnostics, []);
  });
});

/**
 * Type-checks, with the project's compiler options, a module that asks for each generated
 * type `W.X` and its schema `S.X` that `Static<typeof S.X>` and `W.X` are each other's
 * subtype; the module is served from memory, not written into the tree.
 */
function compileAgreement(names: string[]): string[] {
  const dir = join(process.cwd(), 'test/server/contract');
  const file = join(dir, 'wire-agreement.virtual.ts');
  const text = [
    "import type { Static } from '@sinclair/typebox';",
    "import type * as S from '../../../src/server/contract/components.js';",
    "import type * as W from '../../../src/api/wire.generated.js';",
    'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;',
    'type Expect<T extends true> = T;',
    'export type Agreement = [',
    ...names.map((name) => `  Expect<Same<Static<typeof S.${name}>, W.${name}>>,`),
    '];',
  ].join('\n');
  const config = ts.getParsedCommandLineOfConfigFile(
    'tsconfig.json',
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  assert.ok(config, 'tsconfig.json');
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (path) => path === file || fileExists(path);
  host.getSourceFile = (path, language, ...rest) =>
    path === file
      ? ts.createSourceFile(path, text, language)
      : getSourceFile(path, language, ...rest);
  const program = ts.createProgram([file], config.options, host);
  return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((diagnostic) => {
    const line =
      text.split('\n')[
        diagnostic.file?.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line ?? -1
      ];
    return `${line?.trim()}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}
