import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { commonJsAsEsm, esmFromCommonJs } from '../../vite.config.js';

const require = createRequire(import.meta.url);

type Emitter = {
  on(event: string, fn: (...args: unknown[]) => void): void;
  once(event: string, fn: (...args: unknown[]) => void): void;
  off(event: string, fn: (...args: unknown[]) => void): void;
  emit(event: string, ...args: unknown[]): void;
};
type MimeMatch = (target: string, pattern: string) => boolean;

/**
 * The script-tag build reads three CommonJS dependencies of Uppy as ES modules
 * (vite.config.ts). Here each is converted the same way, loaded as a real ES module (strict
 * mode, its import resolved to the other converted one) and run beside the CommonJS original.
 */
describe("the script-tag bundle's CommonJS dependencies read as ES modules", () => {
  let dir = '';
  const converted = new Map<string, unknown>();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-cjs-as-esm-'));
    // A node_modules of their own, so that mime-match's `import wildcard from 'wildcard'`
    // finds the converted wildcard, not the CommonJS one.
    for (const name of commonJsAsEsm) {
      const path = require.resolve(name);
      const folder = join(dir, 'node_modules', name);
      await mkdir(folder, { recursive: true });
      await writeFile(
        join(folder, 'package.json'),
        JSON.stringify({ type: 'module', main: 'index.js' }),
      );
      await writeFile(
        join(folder, 'index.js'),
        esmFromCommonJs(await readFile(path, 'utf8'), path),
      );
    }
    for (const name of commonJsAsEsm) {
      const url = pathToFileURL(join(dir, 'node_modules', name, 'index.js')).href;
      converted.set(name, ((await import(url)) as { default: unknown }).default);
    }
  });

  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('the emitter calls, calls once and stops calling as the original does', () => {
    const runs = [require('namespace-emitter'), converted.get('namespace-emitter')].map(
      (create) => {
        const emitter = (create as () => Emitter)();
        const calls: string[] = [];
        // It always passes six arguments, undefined past the ones emitted.
        const given = (args: unknown[]) => args.filter((arg) => arg !== undefined).join(',');
        const each = (...args: unknown[]) => calls.push(`each ${given(args)}`);
        emitter.on('upload-progress', each);
        emitter.once('upload-progress', (...args) => calls.push(`once ${given(args)}`));
        emitter.on('upload', (...args) => calls.push(`upload ${given(args)}`));
        emitter.emit('upload-progress', 'a', 1);
        emitter.emit('upload-progress', 'b', 2);
        emitter.off('upload-progress', each);
        emitter.emit('upload-progress', 'c', 3);
        emitter.emit('upload', 'd');
        return calls;
      },
    );
    assert.deepEqual(runs[1], runs[0]);
    assert.deepEqual(runs[0], ['each a,1', 'once a,1', 'each b,2', 'upload d']);
  });

  it('the MIME matcher answers as the original for every pattern form accept= allows', () => {
    const original = require('mime-match') as MimeMatch;
    const esm = converted.get('mime-match') as MimeMatch;
    const targets = ['image/png', 'image/svg+xml', 'text/plain', 'application/pdf', 'video/mp4'];
    const patterns = [
      'image/*',
      'image/png',
      'text/*',
      '*/*',
      'application/pdf',
      'image/svg+xml',
      'video/*;codecs=x',
    ];
    for (const target of targets)
      for (const pattern of patterns)
        assert.equal(
          Boolean(esm(target, pattern)),
          Boolean(original(target, pattern)),
          `${target} ~ ${pattern}`,
        );
    assert.ok(esm('image/png', 'image/*'));
    assert.ok(!esm('text/plain', 'image/*'));
  });

  it('refuses a module of another shape rather than half-converting it', () => {
    assert.throws(
      () => esmFromCommonJs('exports.match = function () {}\n', 'x.js'),
      /not the CommonJS shape/,
    );
    assert.throws(
      () => esmFromCommonJs("module.exports = function () { return require('y') }\n", 'x.js'),
      /not the CommonJS shape/,
    );
  });
});
