/**
 * The build's own plugins, for our own code only: no dependency's code is rewritten or
 * replaced (issue #30), so the npm package and the script-tag bundle run the same Uppy, as
 * published.
 */
import { fileURLToPath } from 'node:url';
import { minifyHTMLLiterals } from 'minify-literals';
import type { Plugin } from 'vite';

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
 */
export function minifyTemplates(): Plugin {
  return {
    name: 'filehost-minify-templates',
    apply: 'build',
    async transform(code, id) {
      if (!ELEMENT_MODULE.test(id)) return null;
      const result = await minifyHTMLLiterals(code, {
        fileName: id,
        minifyOptions: { removeAttributeQuotes: true },
      });
      return result ? { code: result.code, map: result.map?.toString() } : null;
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
