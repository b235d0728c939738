import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
        ? fileURLToPath(new URL('./src/index.ts', import.meta.url))
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
  plugins: [uppyVersionOnly(), scriptTagFromSources()],
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
    rolldownOptions: { output: { minify: true } },
    lib: {
      entry: 'src/index.ts',
      formats: ['es'],
      fileName: () => 'filehost.js',
    },
  },
});
