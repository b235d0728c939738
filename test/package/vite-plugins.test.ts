import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import type { Plugin } from 'vite';
import config from '../../vite.config.js';
import { minifyTemplates, scriptTagFromSources } from '../../vite-plugins.js';

/** A plugin hook called as Vite would, with no plugin context (ours use none). */
async function call(plugin: Plugin, hook: 'transform' | 'load' | 'resolveId', ...args: unknown[]) {
  const value = plugin[hook] as unknown;
  const fn = (typeof value === 'function' ? value : (value as { handler?: unknown })?.handler) as
    | ((...a: unknown[]) => unknown)
    | undefined;
  return fn ? await fn.apply({}, args) : null;
}

const template = [
  "import { html } from 'lit';",
  'export const row = (name: string) => html`',
  '  <li class="row" data-kind="a file">',
  '    <!-- the name, as given -->',
  `    <span title="\${name}">\${name}</span>`,
  '  </li>',
  '`;',
].join('\n');

/** The build's own plugins (vite-plugins.ts): they touch our code only, never a dependency's. */
describe("the build's plugins", () => {
  it("minifyTemplates minifies an element's Lit templates, keeping every binding", async () => {
    const id = resolve('src/elements/file-list/row.ts');
    const out = (await call(minifyTemplates(), 'transform', template, id)) as { code: string };
    // Quotes go where HTML needs none, a binding's too; a value with a space keeps them.
    assert.ok(
      out.code.includes(
        `html\`<li class=row data-kind="a file"><span title=\${name}>\${name}</span></li>\``,
      ),
      out.code,
    );
    assert.ok(!out.code.includes('the name, as given'), 'the comment is gone');
  });

  it('minifyTemplates leaves every module outside src/elements/ as it is', async () => {
    for (const id of [
      resolve('src/client/client.ts'),
      resolve('node_modules/lit-html/lit-html.js'),
      resolve('node_modules/@uppy/core/lib/Uppy.js'),
    ])
      assert.equal(await call(minifyTemplates(), 'transform', template, id), null, id);
  });

  it('scriptTagFromSources serves /filehost.js from src/script-tag.ts, its languages from src/locales, and nothing else', async () => {
    const plugin = scriptTagFromSources();
    assert.equal(plugin.apply, 'serve');
    assert.equal(await call(plugin, 'resolveId', '/filehost.js'), resolve('src/script-tag.ts'));
    assert.equal(
      await call(plugin, 'resolveId', '/locales/pt-BR.js'),
      resolve('src/locales/pt-BR.ts'),
    );
    assert.equal(await call(plugin, 'resolveId', '/src/locales/de.ts'), null);
    assert.equal(await call(plugin, 'resolveId', '@uppy/core'), null);
    assert.equal(await call(plugin, 'resolveId', './filehost.js'), null);
  });

  it("vite.config.ts uses these two only: no plugin loads, resolves or rewrites a dependency's code", async () => {
    const plugins = (config.plugins ?? []).flat() as Plugin[];
    assert.deepEqual(
      plugins.map((plugin) => plugin.name),
      ['filehost-minify-templates', 'filehost-script-tag-from-sources'],
    );
    const uppy = resolve('node_modules/@uppy/core/lib/Uppy.js');
    for (const plugin of plugins) {
      assert.equal(await call(plugin, 'load', uppy), null, plugin.name);
      assert.equal(await call(plugin, 'resolveId', 'lodash/throttle.js', uppy), null, plugin.name);
      assert.equal(await call(plugin, 'transform', 'class Uppy {}', uppy), null, plugin.name);
    }
  });
});
