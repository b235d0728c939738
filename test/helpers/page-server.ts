import { createServer, type Server } from 'node:http';
import { build } from 'esbuild';
import { SHIPPED_LOCALES } from '../../src/locales/index.js';

/**
 * A plain static server for one HTML page and the elements bundled from the sources, from
 * the script-tag bundle's entry (no Vite): what a page with one script tag looks like to the
 * browser.
 */
export async function servePage(
  html: string,
  /** What `/bundle.js` is built from. */
  entry = 'src/script-tag.ts',
): Promise<{ origin: string; close: () => Promise<void> }> {
  const bundle = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    write: false,
    minify: true,
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  // Each language's words, which the entry fetches on use from `locales/` beside itself.
  const locales = new Map<string, string>();
  for (const tag of SHIPPED_LOCALES.split(' ')) {
    const built = await build({
      entryPoints: [`src/locales/${tag}.ts`],
      bundle: true,
      format: 'esm',
      write: false,
      minify: true,
    });
    locales.set(`/locales/${tag}.js`, built.outputFiles[0]?.text ?? '');
  }
  const server: Server = createServer((request, response) => {
    const locale = locales.get(request.url ?? '');
    if (request.url === '/bundle.js') {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(script);
    } else if (locale !== undefined) {
      response.writeHead(200, { 'Content-Type': 'text/javascript' }).end(locale);
    } else {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    origin: `http://localhost:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
