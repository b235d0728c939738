import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { minifyHTMLLiterals } from 'minify-literals';
import { defineConfig, type Plugin } from 'vite';

/**
 * Uppy's packages import their whole package.json only to read `version`; in the bundle
 * that is kilobytes of descriptions and export maps. Keep just the version.
 */
function uppyVersionOnly(): Plugin {
  return {
    name: 'filehost-uppy-version-only',
    enforce: 'pre',
    load(id) {
      if (!/[\\/]@uppy[\\/][^\\/]+[\\/]package\.json$/.test(id)) return null;
      const { version } = JSON.parse(readFileSync(id, 'utf8')) as { version: string };
      // Still JSON: Vite's JSON plugin turns it into the module.
      return JSON.stringify({ version });
    },
  };
}

/**
 * The strings Uppy's core code can ask its translator for: the quoted names in the modules
 * directly under `@uppy/core/lib` and `lib/utils` (Uppy, Restricter, the plugin bases), which
 * are all the bundle takes from core. Its subfolders (provider views, Companion) are not in it.
 */
export function uppyCoreStringsInUse(libDir: string): Set<string> {
  const used = new Set<string>();
  for (const dir of [libDir, join(libDir, 'utils')]) {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith('.js') || name === 'locale.js') continue;
      for (const [, key] of readFileSync(join(dir, name), 'utf8').matchAll(/['"`](\w+)['"`]/g))
        if (key) used.add(key);
    }
  }
  return used;
}

/**
 * Uppy's default English locale carries the strings of its whole UI (Dashboard, provider
 * views, Google Picker, S3 browsing): 3.6 KiB minified, of which core asks for about twenty.
 * Keep those. The elements show their own texts; should Uppy ever ask for a dropped
 * string, its translator logs and returns the key rather than throwing.
 */
function uppyLocaleInUse(): Plugin {
  return {
    name: 'filehost-uppy-locale-in-use',
    enforce: 'pre',
    async load(id) {
      if (!/[\\/]@uppy[\\/]core[\\/]lib[\\/]locale\.js$/.test(id)) return null;
      const locale = (await import(pathToFileURL(id).href)) as {
        default: { strings: Record<string, unknown> };
      };
      const used = uppyCoreStringsInUse(dirname(id));
      const strings = Object.fromEntries(
        Object.entries(locale.default.strings).filter(([key]) => used.has(key)),
      );
      return `export default ${JSON.stringify({ ...locale.default, strings })};`;
    },
  };
}

/**
 * Uppy guesses a type from the extension when the browser gives none, from a table most of
 * which is Office and archive formats (for its Dashboard's previews). Keep the media and text
 * entries, which `accept="image/*"`-style checks depend on; a document the browser cannot
 * type is uploaded as `application/octet-stream`, the service's default, as without Uppy.
 */
function uppyMimeTypesForMedia(): Plugin {
  return {
    name: 'filehost-uppy-mime-types-for-media',
    enforce: 'pre',
    apply: 'build',
    async load(id) {
      if (!/[\\/]@uppy[\\/]core[\\/]lib[\\/]utils[\\/]mimeTypes\.js$/.test(id)) return null;
      const table = (await import(pathToFileURL(id).href)) as { default: Record<string, string> };
      const kept = Object.entries(table.default).filter(([, type]) =>
        /^(image|video|audio|text)\//.test(type),
      );
      // No prototype, as in Uppy's table: a file named `x.constructor` must find nothing.
      return `export default { __proto__: null, ...${JSON.stringify(Object.fromEntries(kept))} };`;
    },
  };
}

/**
 * In the script-tag bundle only, three of Uppy's small modules are replaced by what the
 * bundle already has or needs less of (each shim says why): together 1.3 KiB gzipped
 * of a 32 KiB budget. Bundler users of the npm package get the real ones.
 */
export const bundleShims: Record<string, string> = {
  'lodash/throttle.js': 'src/bundle-shims/throttle.ts',
  '@transloadit/prettier-bytes': 'src/bundle-shims/prettier-bytes.ts',
  './supportsUploadProgress.js': 'src/bundle-shims/supports-upload-progress.ts',
};

function scriptTagShims(): Plugin {
  return {
    name: 'filehost-script-tag-shims',
    enforce: 'pre',
    apply: 'build',
    resolveId(id, importer) {
      const shim = bundleShims[id];
      if (!shim || !importer || !/[\\/]node_modules[\\/]@uppy[\\/]/.test(importer)) return null;
      return fileURLToPath(new URL(`./${shim}`, import.meta.url));
    },
  };
}

/**
 * Three of Uppy's dependencies are tiny CommonJS modules (an event emitter and the MIME-type
 * matcher its restrictions use, with the wildcard matcher under it). Bundled as they are,
 * they bring the bundler's CommonJS interop runtime along (0.3 KiB gzipped). Each is one
 * `module.exports = function` and at most one `require`, and strict-mode safe, so in the
 * script-tag bundle they are read as the ES modules they are equivalent to.
 */
export const commonJsAsEsm = ['namespace-emitter', 'wildcard', 'mime-match'];

export function esmFromCommonJs(source: string, id: string): string {
  const esm = source
    .replace(/^var (\w+) = require\('([\w-]+)'\);$/m, "import $1 from '$2';")
    .replace(/^module\.exports = /m, 'export default ');
  // Code shaped otherwise (a new version of one of them) must not slip through half-converted.
  if (
    !esm.includes('export default ') ||
    /\brequire\(|\bmodule\.|\bexports\./.test(esm.replace(/\/\*[\s\S]*?\*\//g, ''))
  )
    throw new Error(
      `${id}: not the CommonJS shape esmFromCommonJs converts; update vite.config.ts`,
    );
  return esm;
}

function commonJsDependenciesAsEsm(): Plugin {
  const modules = new RegExp(
    `[\\\\/]node_modules[\\\\/](${commonJsAsEsm.join('|')})[\\\\/]index\\.js$`,
  );
  return {
    name: 'filehost-commonjs-dependencies-as-esm',
    enforce: 'pre',
    apply: 'build',
    load(id) {
      return modules.test(id) ? esmFromCommonJs(readFileSync(id, 'utf8'), id) : null;
    },
  };
}

/**
 * The elements' html`` and css`` templates are written to read well in the source; in the
 * bundle their indentation, comments and optional whitespace are bytes sent for nothing.
 * minify-literals (html-minifier-terser and clean-css, made for Lit's templates) minifies
 * them in the element modules, keeping every `${}` binding and the source map.
 */
function minifyTemplates(): Plugin {
  return {
    name: 'filehost-minify-templates',
    apply: 'build',
    async transform(code, id) {
      if (!/[\\/]src[\\/]elements[\\/].*\.ts$/.test(id)) return null;
      const result = await minifyHTMLLiterals(code, { fileName: id });
      return result ? { code: result.code, map: result.map?.toString() } : null;
    },
  };
}

/**
 * `npm start` serves the demo (`index.html`, `demo/`) with Vite on port 5173 (fixed: the
 * service's default project allows exactly that origin). `npm run build` builds the
 * script-tag bundle `dist/filehost.js`: one ES module with Lit, Uppy and both elements.
 */
/**
 * The demo page loads the product the way a page author does, with one script tag for
 * `/filehost.js`; under `npm start` that is the sources, so edits show at once.
 */
function scriptTagFromSources(): Plugin {
  return {
    name: 'filehost-script-tag-from-sources',
    apply: 'serve',
    resolveId(id) {
      return id === '/filehost.js'
        ? fileURLToPath(new URL('./src/script-tag.ts', import.meta.url))
        : null;
    },
  };
}

export default defineConfig({
  server: {
    host: 'localhost',
    port: 5173,
    strictPort: true,
  },
  preview: {
    port: 5173,
    strictPort: true,
  },
  clearScreen: false,
  plugins: [
    uppyVersionOnly(),
    uppyLocaleInUse(),
    uppyMimeTypesForMedia(),
    scriptTagShims(),
    commonJsDependenciesAsEsm(),
    minifyTemplates(),
    scriptTagFromSources(),
  ],
  // The Vue demo compiles its template in the browser, so it needs Vue's full build.
  resolve: { alias: { vue: 'vue/dist/vue.esm-bundler.js' } },
  define: {
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Library builds keep whitespace by default (for further bundling); the script-tag
    // bundle is the end product, so it is minified fully.
    minify: true,
    rolldownOptions: { output: { minify: true, comments: false } },
    lib: {
      entry: 'src/script-tag.ts',
      formats: ['es'],
      fileName: () => 'filehost.js',
    },
  },
});
