import { readdirSync } from 'node:fs';
import { defineConfig } from 'vite';
import { jsonThroughBundler, minifyTemplates, scriptTagFromSources } from './vite-plugins.js';

/**
 * `npm start` serves the demo (`index.html`, `demo/`) with Vite on port 5173 (fixed: the
 * service's default project allows exactly that origin). `npm run build` builds the
 * script-tag bundle `dist/filehost.js`: one ES module with Lit and both elements, which loads
 * the upload engine (Uppy, as published) and the on-use features as chunks beside it.
 */
/**
 * Each shipped language (`src/locales/<tag>.ts`) is an entry of its own, built to
 * `dist/locales/<tag>.js` beside `filehost.js`, which fetches the page's one on use. They
 * are plain data and import nothing, so no code is shared with (or moved out of) the bundle.
 */
const locales = Object.fromEntries(
  readdirSync('src/locales')
    .filter((file) => file !== 'index.ts')
    .map((file) => [`locales/${file.replace(/\.ts$/, '')}`, `src/locales/${file}`]),
);

/**
 * `vite build --mode bundle` (the second step of `npm run build`) writes
 * `dist/filehost.bundle.js`: the same entry with every chunk inlined and every language in
 * it (`src/script-tag-one-file.ts`), for a page author who copies one file, beside which
 * there is no `locales/` to fetch from; MD5 is hashed on the page's thread (its worker
 * imports the MD5 chunk by its own URL, which this file does not have).
 */
export default defineConfig(({ mode }) => ({
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
  plugins: [jsonThroughBundler(), minifyTemplates(), scriptTagFromSources()],
  resolve: {
    alias: [
      // The Vue demo compiles its template in the browser, so it needs Vue's full build.
      { find: 'vue', replacement: 'vue/dist/vue.esm-bundler.js' },
      // Uppy imports `lodash/throttle.js` (CommonJS: each module wrapped for `require`);
      // lodash-es is the same release as ES modules, which the engine chunk takes unwrapped.
      { find: /^lodash\/(.*)$/, replacement: 'lodash-es/$1' },
    ],
  },
  define: {
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    // The one-file bundle has no chunk with a URL of its own for MD5's worker (src/client/md5.ts).
    __FILEHOST_CHUNKS__: mode === 'bundle' ? 'false' : 'true',
  },
  build: {
    target: 'es2022',
    outDir: 'dist',
    sourcemap: true,
    // Library builds keep whitespace by default (for further bundling); the script-tag
    // bundle is the end product, so it is minified fully.
    minify: true,
    // The first build empties dist/; the one-file bundle is written beside it.
    emptyOutDir: mode !== 'bundle',
    rolldownOptions: {
      // What both filehost.js and the engine use stays in filehost.js (the engine imports it
      // from there) instead of becoming a third file that the first load must also fetch.
      preserveEntrySignatures: 'allow-extension',
      output: {
        minify: true,
        comments: false,
        // The upload engine, imported by filehost.js on first use or when the page is idle,
        // by a path relative to itself: the pair works from any folder of any CDN.
        chunkFileNames: 'filehost-[name]-[hash].js',
        codeSplitting: mode !== 'bundle',
      },
    },
    lib: {
      entry: (mode === 'bundle'
        ? { 'filehost.bundle': 'src/script-tag-one-file.ts' }
        : { filehost: 'src/script-tag.ts', ...locales }) as Record<string, string>,
      formats: ['es'],
      fileName: (_format, name) => `${name}.js`,
    },
  },
}));
