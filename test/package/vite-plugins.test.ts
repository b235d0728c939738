import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { build, type Plugin, type Rolldown } from 'vite';
import config from '../../vite.config.js';
import { jsonThroughBundler, minifyTemplates, scriptTagFromSources } from '../../vite-plugins.js';

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

  it('minifyTemplates keeps the space a template opens with on its first line (a fragment beside text)', async () => {
    const id = resolve('src/elements/file-uploader/rows.ts');
    const source = [
      "import { html } from 'lit';",
      'export const meta = (size: string, state: string, or: string) =>',
      `  html\`\${size}\${html\` · <span class="state">\${state}</span>\`}\${html\` \${or}`,
      '    <button>b</button>  `}`;',
    ].join('\n');
    const out = (await call(minifyTemplates(), 'transform', source, id)) as { code: string };
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the built module's text, placeholders and all
    assert.ok(out.code.includes('html` · <span class=state>${state}</span>`'), out.code);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the built module's text, placeholders and all
    assert.ok(out.code.includes('html` ${or} <button>b</button>`'), out.code);
    assert.ok(!out.code.includes('\uE000'), out.code);
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

  it('jsonThroughBundler: a JSON module keeps the fields its importer reads, with their values, and no other', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'filehost-json-'));
    try {
      const manifest = { name: 'dep', version: '9.8.7', description: 'NEVER READ', scripts: {} };
      await writeFile(join(folder, 'package.json'), JSON.stringify(manifest));
      await writeFile(
        join(folder, 'entry.js'),
        "import pkg from './package.json' with { type: 'json' };\nexport class Dep { static VERSION = pkg.version; }\n",
      );
      const bundle = async (plugins: Plugin[]) => {
        const out = (await build({
          configFile: false,
          logLevel: 'silent',
          root: folder,
          plugins,
          build: {
            write: false,
            minify: false,
            lib: { entry: join(folder, 'entry.js'), formats: ['es'], fileName: 'out' },
          },
        })) as Rolldown.RolldownOutput[];
        const chunk = out[0]?.output[0];
        assert.ok(chunk && chunk.type === 'chunk');
        return chunk.code;
      };
      const code = await bundle([jsonThroughBundler()]);
      assert.ok(!code.includes('NEVER READ'), code);
      const { Dep } = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as {
        Dep: { VERSION: string };
      };
      assert.equal(Dep.VERSION, '9.8.7');
      // Without it, Vite's own JSON plugin ships the whole manifest (why the plugin exists).
      assert.ok((await bundle([])).includes('NEVER READ'));
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('jsonThroughBundler hands the bundler the JSON file as it is, and nothing that is not JSON', async () => {
    const plugin = jsonThroughBundler();
    assert.equal(plugin.apply, 'build');
    const manifest = resolve('node_modules/@uppy/core/package.json');
    const loaded = (await call(
      plugin,
      'load',
      `\0filehost-json:${manifest.replace(/\.json$/, '')}`,
    )) as {
      code: string;
      moduleType: string;
    };
    assert.equal(loaded.code, await readFile(manifest, 'utf8'));
    assert.equal(loaded.moduleType, 'json');
    assert.equal(await call(plugin, 'load', manifest), null);
    assert.equal(await call(plugin, 'load', resolve('node_modules/@uppy/core/lib/Uppy.js')), null);
  });

  it("vite.config.ts uses these three only: no plugin loads, resolves or rewrites a dependency's code", async () => {
    // Both builds: the script tag with its chunks, and the one-file bundle (`--mode bundle`).
    const builds = ['production', 'bundle'].map((mode) => config({ command: 'build', mode }));
    const [plugins = [], bundlePlugins = []] = builds.map(
      (build) => (build.plugins ?? []).flat() as Plugin[],
    );
    assert.deepEqual(
      bundlePlugins.map((plugin) => plugin.name),
      plugins.map((plugin) => plugin.name),
    );
    assert.deepEqual(
      plugins.map((plugin) => plugin.name),
      [
        'filehost-json-through-bundler',
        'filehost-minify-templates',
        'filehost-script-tag-from-sources',
      ],
    );
    const uppy = resolve('node_modules/@uppy/core/lib/Uppy.js');
    for (const plugin of plugins) {
      assert.equal(await call(plugin, 'load', uppy), null, plugin.name);
      assert.equal(await call(plugin, 'resolveId', 'lodash/throttle.js', uppy), null, plugin.name);
      assert.equal(await call(plugin, 'transform', 'class Uppy {}', uppy), null, plugin.name);
    }
  });
});
