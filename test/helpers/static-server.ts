import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { localeSizes, ONE_FILE, scriptTagFiles } from '../bench/support.js';

/**
 * The built script-tag bundle (`dist/`, from `npm run build`) and one HTML page, served by a
 * plain static server (no Vite, no bundler), as a page author's CDN would serve them.
 */
export async function staticServer(
  page: (origin: string) => string,
  /** Which files of dist/ are deployed (`filehost.js`, `locales/de.js`, …); all unless told. */
  deployed: (name: string) => boolean = () => true,
): Promise<{ origin: string; server: Server }> {
  // filehost.js and the upload engine it imports from beside itself, as a CDN would serve them,
  // and the one-file bundle.
  const scripts = new Map<string, Buffer>();
  for (const name of [...(await scriptTagFiles()), ONE_FILE]) {
    if (deployed(name)) scripts.set(`/${name}`, await readFile(`dist/${name}`));
  }
  // And each language's words, which filehost.js fetches from `locales/` beside itself.
  for (const { name } of await localeSizes()) {
    if (deployed(name)) scripts.set(`/${name}`, await readFile(`dist/${name}`));
  }
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const script = scripts.get(path);
    if (script) {
      // Readable from pages of any origin, as a CDN serves it (a module script from
      // another origin needs CORS).
      response
        .writeHead(200, { 'Content-Type': 'text/javascript', 'Access-Control-Allow-Origin': '*' })
        .end(script);
    } else if (path === '/') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page(origin));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const origin = `http://localhost:${address.port}`;
  return { origin, server };
}
