import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAst } from 'vite';
import {
  namesReadIn,
  trimUppyModule,
  uppyFoldedExpressions,
  uppyUnusedMembers,
} from '../../vite.config.js';

const require = createRequire(import.meta.url);
const uppyRoot = join(require.resolve('@uppy/core/package.json'), '..', '..');

async function uppySource(path: string): Promise<string> {
  return readFile(join(uppyRoot, path), 'utf8');
}

/**
 * The script-tag build trims Uppy's modules (vite.config.ts): members nothing calls, options
 * the element never sets, log statements. Here on Uppy's real modules, and on a changed
 * Uppy, which must stop the build rather than slip through half-trimmed.
 */
describe("the script-tag bundle's trimmed Uppy", () => {
  for (const path of new Set([
    ...Object.keys(uppyUnusedMembers),
    ...Object.keys(uppyFoldedExpressions),
  ])) {
    it(`@uppy/${path}: loses the listed members and folds, and still parses`, async () => {
      const source = await uppySource(path);
      const trimmed = trimUppyModule(source, path).toString();
      // A member still referred to after its removal (a #private one) fails to parse.
      parseAst(trimmed);
      const definedBefore = classMembers(source);
      const definedAfter = classMembers(trimmed);
      for (const name of uppyUnusedMembers[path] ?? []) {
        assert.ok(definedBefore.has(name), `${name} is not in Uppy's ${path}`);
        assert.ok(!definedAfter.has(name), `${name} is still in the trimmed ${path}`);
      }
      for (const { expression } of uppyFoldedExpressions[path] ?? [])
        assert.ok(!trimmed.includes(expression), expression);
      // Only members and folds go: the rest of the module is still there.
      assert.ok(trimmed.length > source.length / 3);
    });
  }

  it("drops Uppy's log statements, except those whose arguments do something", async () => {
    const source = await uppySource('core/lib/Uppy.js');
    const trimmed = trimUppyModule(source, 'core/lib/Uppy.js').toString();
    assert.ok(source.includes('this.log(`Using Core v'));
    assert.ok(!trimmed.includes('Using Core v'));
    // Its argument calls join(): kept, in case a call matters.
    assert.ok(trimmed.includes('this.log(`Removed files: '));
  });

  it('leaves an empty statement where a log call was the whole body of an if without braces', async () => {
    // Uppy's own case: removing the call made `return exists` the if's body, and every file
    // of the script-tag bundle lost its upload progress.
    const source = await uppySource('core/lib/Uppy.js');
    assert.match(source, /if \(!exists\)\s+this\.log\(/);
    const trimmed = trimUppyModule(source, 'core/lib/Uppy.js').toString();
    const filter = new Function(
      'file',
      'getFile',
      /const exists = [^;]+;\s+if \(!exists\)[\s\S]*?return exists;/
        .exec(trimmed)?.[0]
        .replace('this.getFile', 'getFile') ?? 'throw new Error("not found")',
    ) as (file: { id: string } | null, getFile: (id: string) => unknown) => unknown;
    assert.ok(
      filter({ id: 'a' }, () => ({ id: 'a' })),
      'a file that exists is kept',
    );
    assert.ok(!filter({ id: 'b' }, () => undefined), 'a removed one is not');
  });

  it('stops when Uppy no longer has a listed member, or a fold occurs a different number of times', () => {
    assert.throws(
      () => trimUppyModule('export default class Uppy { pauseAll() {} }', 'core/lib/Uppy.js'),
      /core\/lib\/Uppy\.js: resetProgress, .*update vite\.config\.ts/,
    );
    const xhr =
      'class X { createBundledUpload() {} a() { return this.opts.bundle && file.isRemote } }';
    assert.throws(
      () => trimUppyModule(xhr, 'xhr-upload/lib/index.js'),
      /this\.opts\.bundle x5, file\.isRemote x2 not as expected/,
    );
  });

  it('finds every way a bundle can still name a removed member', () => {
    const { properties, strings } = namesReadIn(
      "a.pauseAll(); b['resumeAll'](); c?.logout; new Map().set(`uppy test: getPlugins`, 1);",
    );
    for (const name of ['pauseAll', 'resumeAll', 'logout', 'set'])
      assert.ok(properties.has(name), name);
    assert.ok(strings.has('uppy test: getPlugins'));
    assert.ok(!properties.has('a'));
  });
});

/** The names of the class members (`name`, `#name`, `[computed]`) defined in a module. */
function classMembers(code: string): Set<string> {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const { type, key, computed } = node as {
      type?: string;
      key?: { type: string; name?: string; start: number; end: number };
      computed?: boolean;
    };
    if (key && /^(MethodDefinition|PropertyDefinition)$/.test(type ?? ''))
      names.add(
        computed
          ? code.slice(key.start, key.end)
          : key.type === 'PrivateIdentifier'
            ? `#${key.name}`
            : (key.name ?? ''),
      );
    for (const value of Object.values(node)) {
      if (Array.isArray(value)) value.forEach(visit);
      else visit(value);
    }
  };
  visit(parseAst(code));
  return names;
}
