/**
 * The build's own plugins, for our own code only: no dependency's code is rewritten or
 * replaced (issue #30), so the npm package and the script-tag bundle run the same Uppy, as
 * published.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { minifyHTMLLiterals } from 'minify-literals';
import type { Plugin } from 'vite';

/** Stands for a space the minifier must keep (a private-use character, in no source). */
const KEPT_SPACE = '\uE000';

/** The element modules, whose templates `minifyTemplates` minifies. */
const ELEMENT_MODULE = /[\\/]src[\\/]elements[\\/].*\.ts$/;

/**
 * The elements' html`` and css`` templates are written to read well in the source; in the
 * bundle their indentation, comments and optional whitespace are bytes sent for nothing.
 * minify-literals (html-minifier-terser and clean-css, made for Lit's templates) minifies
 * them in the element modules, keeping every `${}` binding and the source map. Attribute
 * values that need no quotes in HTML lose them (`class=row`, `src=${url}`: Lit reads an
 * unquoted binding as it reads a quoted one); this kept the first load within its 20 KiB
 * once the upload token's calls were in it (-29 bytes gzipped).
 *
 * A template that opens with spaces on its first line (`html\` · <span>…\``, after a row's
 * size) opens with a space in the bundle too: the minifier sees a template alone, not what
 * stands beside it where it is used, and drops the whitespace at its edges, so rows read
 * "95 B· Uploaded" in the bundle but not from the sources. That whitespace is handed to it
 * as a character it keeps, and made a space again after. (A template that opens with a line
 * break is laid out for reading, and minified as before.)
 */
export function minifyTemplates(): Plugin {
  return {
    name: 'filehost-minify-templates',
    apply: 'build',
    async transform(code, id) {
      if (!ELEMENT_MODULE.test(id)) return null;
      // One character for one, both ways: the source map's columns stay right.
      const marked = code.replace(
        /(\bhtml`)([ \t]+)/g,
        (_, tag: string, spaces: string) => `${tag}${KEPT_SPACE.repeat(spaces.length)}`,
      );
      const result = await minifyHTMLLiterals(marked, {
        fileName: id,
        minifyOptions: { removeAttributeQuotes: true },
      });
      if (!result) return null;
      const minified = result.code.replaceAll(KEPT_SPACE, ' ');
      return { code: minified, map: result.map?.toString() };
    },
  };
}

/**
 * The demo page loads the product the way a page author does, with one script tag for
 * `/filehost.js`; under `npm start` that is the sources, so edits show at once. The
 * languages it fetches from beside itself (`/locales/<tag>.js`) are `src/locales/<tag>.ts`.
 */
export function scriptTagFromSources(): Plugin {
  return {
    name: 'filehost-script-tag-from-sources',
    apply: 'serve',
    resolveId(id) {
      if (id === '/filehost.js')
        return fileURLToPath(new URL('./src/script-tag.ts', import.meta.url));
      const locale = /^\/locales\/([\w-]+)\.js$/.exec(id)?.[1];
      return locale ? fileURLToPath(new URL(`./src/locales/${locale}.ts`, import.meta.url)) : null;
    },
  };
}

/** The id prefix of a JSON module that the bundler itself loads (see `jsonThroughBundler`). */
const JSON_MODULE = '\0filehost-json:';

/**
 * A JSON module (`import pkg from '../package.json' with { type: 'json' }`) goes to the
 * bundler as JSON, so Rolldown keeps only the fields the code reads, as it does for JSON it
 * loads itself (rolldown#6614). Vite's own JSON plugin turns the file into one JavaScript
 * object first, which keeps every field: Uppy's core and xhr-upload read only `version` from
 * their package.json, and the engine shipped both manifests whole (descriptions, scripts,
 * dependency lists: 1.1 KiB gzipped of the 44 KiB budget). No code of a dependency changes;
 * the code reads the same values. The id leaves `.json` off so that Vite's plugin, which
 * claims every id ending in `.json`, lets it through.
 */
export function jsonThroughBundler(): Plugin {
  return {
    name: 'filehost-json-through-bundler',
    apply: 'build',
    enforce: 'pre',
    async resolveId(source, importer, options) {
      if (!source.endsWith('.json')) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved || resolved.external) return null;
      return `${JSON_MODULE}${resolved.id.replace(/\.json$/, '')}`;
    },
    async load(id) {
      if (!id.startsWith(JSON_MODULE)) return null;
      const file = `${id.slice(JSON_MODULE.length)}.json`;
      return { code: await readFile(file, 'utf8'), moduleType: 'json' };
    },
  };
}
