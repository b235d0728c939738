import { defineConfig } from 'vite';
import { minifyTemplates, scriptTagFromSources } from './vite-plugins.js';

/**
 * `npm start` serves the demo (`index.html`, `demo/`) with Vite on port 5173 (fixed: the
 * service's default project allows exactly that origin). `npm run build` builds the
 * script-tag bundle `dist/filehost.js`: one ES module with Lit and both elements, which loads
 * the upload engine (Uppy, as published) and the on-use features as chunks beside it.
 */
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
  plugins: [minifyTemplates(), scriptTagFromSources()],
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
      },
    },
    lib: {
      entry: 'src/script-tag.ts',
      formats: ['es'],
      fileName: () => 'filehost.js',
    },
  },
});
