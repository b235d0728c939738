import { defineConfig } from 'vite';

/**
 * Serves the demo (`index.html`, `demo/`) during `npm start`. Port 5173 is fixed because
 * the service's default project allows exactly that origin.
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
});
