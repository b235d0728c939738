import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { createServer, type ViteDevServer } from 'vite';

/**
 * What Vite's dev server refuses to serve by default (`server.fs.deny`): setting the option
 * replaces the list, so the demo names them again beside its own.
 */
const VITE_DEFAULT_DENY = ['.env', '.env.*', '*.{crt,pem}', '**/.git/**'];

/**
 * The demo page's dev server (`npm start`): Vite on the project's root, which would serve
 * any file under it, the service's data dir included when it lies there (the default,
 * `./.filehost`): its database and the file that keeps the default project's secret key.
 * So the data dir is denied, by every route Vite has (a plain path, `?import`, `?raw`,
 * `/@fs/`), wherever it is.
 */
export async function startDemoServer(options: {
  dataDir: string;
  /** Default: vite.config.ts's (5173, which the default project allows). */
  port?: number;
}): Promise<ViteDevServer> {
  // As written and as Vite will see it (it serves real paths), glob characters taken
  // literally: a data dir named `a[1]` is not the pattern `a[1]`.
  const dirs = [...new Set([resolve(options.dataDir), realPath(resolve(options.dataDir))])].map(
    (dir) => dir.replace(/[*?[\]{}()!+@]/g, '\\$&'),
  );
  const vite = await createServer({
    logLevel: 'warn',
    server: {
      ...(options.port === undefined ? {} : { port: options.port }),
      // Absolute patterns: Vite matches them against the absolute path of what it serves.
      fs: { deny: [...VITE_DEFAULT_DENY, ...dirs.flatMap((dir) => [dir, `${dir}/**`])] },
    },
  });
  await vite.listen();
  return vite;
}

/** The directory's real path, or the path itself while it does not exist yet. */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}
