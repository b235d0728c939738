import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import type { UploadTokenResponse } from '../../src/api/types.js';
import { FilehostClient } from '../../src/client/index.js';
import { solidImage } from '../helpers/images.js';
import { freePort } from '../helpers/ports.js';
import { startTestService } from '../helpers/service.js';

/** The code blocks of docs/upload-tokens.md (the README's "Who may upload" links it), by language. */
async function blocks(language: string): Promise<string[]> {
  const text = await readFile('docs/upload-tokens.md', 'utf8');
  const fence = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\``, 'gm');
  return [...text.matchAll(fence)].map((match) => match[1] ?? '');
}

/**
 * Type-checks files as a user's project would see them, under `strict`, with `filehost`'s
 * entries mapped to this repository's sources: the diagnostics, as text.
 */
async function typeCheck(files: Record<string, string>): Promise<string[]> {
  // Inside the repository, so that `react` and `@types/node` resolve from its node_modules.
  const dir = await mkdtemp(resolve('test/package/.readme-'));
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    const src = resolve('src');
    const program = ts.createProgram(
      Object.keys(files).map((name) => join(dir, name)),
      {
        strict: true,
        noUncheckedIndexedAccess: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        types: ['node'],
        jsx: ts.JsxEmit.ReactJSX,
        useDefineForClassFields: false,
        experimentalDecorators: true,
        skipLibCheck: true,
        noEmit: true,
        paths: {
          filehost: [`${src}/index.ts`],
          'filehost/client': [`${src}/client/index.ts`],
          'filehost/react': [`${src}/react.ts`],
        },
      },
    );
    return ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('docs/upload-tokens.md: Who may upload', () => {
  it('has a backend route, a script-tag page and a React component, which compile under strict', async () => {
    const [backend, ...others] = await blocks('ts');
    const [react] = await blocks('tsx');
    const [page] = await blocks('html');
    assert.equal(others.length, 0);
    assert.ok(backend?.includes('createUploadToken'), 'the backend mints a token');
    assert.ok(react?.includes('tokenProvider={tokenProvider}'), 'the React page uses it');
    // The page's module script, checked as the TypeScript it also is.
    const script = /<script type="module">\n([\s\S]*?)<\/script>/.exec(page ?? '')?.[1];
    assert.ok(script?.includes('tokenProvider'), 'the script tag page uses it');
    const diagnostics = await typeCheck({
      'package.json': '{ "type": "module" }',
      'server.ts': backend ?? '',
      'page.tsx': react ?? '',
      'script.ts': `import 'filehost';\n${script}`,
    });
    assert.deepEqual(diagnostics, []);
  });
});

describe('docs/upload-tokens.md: the backend route runs as written', () => {
  it('answers 401 before sign-in; after it, the minted token with its limits, which uploads as that user', async () => {
    const [backend] = await blocks('ts');
    assert.ok(backend);
    const service = await startTestService();
    // Inside the repository, as docs-code does, so that tsx finds its dependencies; the one
    // change to the block is where `filehost/client` is (this repository's sources).
    const dir = await mkdtemp(resolve('test/package/.route-'));
    const file = join(dir, 'server.ts');
    await writeFile(
      file,
      backend.replace("'filehost/client'", JSON.stringify(resolve('src/client/index.ts'))),
    );
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      env: {
        ...process.env,
        FILEHOST_API_URL: service.apiUrl,
        FILEHOST_SECRET_KEY: service.secretKey,
        PORT: String(port),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    try {
      const route = `http://127.0.0.1:${port}`;
      const post = async (path: string, cookie?: string) => {
        for (let tries = 0; ; tries++) {
          try {
            return await fetch(`${route}${path}`, {
              method: 'POST',
              headers: cookie ? { Cookie: cookie } : {},
            });
          } catch (error) {
            // Listening shortly (tsx compiles it first).
            if (tries > 200 || child.exitCode !== null) throw new Error(`${error}\n${stderr}`);
            await new Promise((done) => setTimeout(done, 50));
          }
        }
      };
      assert.equal((await post('/api/upload-token')).status, 401);
      assert.equal((await post('/api/elsewhere')).status, 404);
      const signIn = await post('/api/sign-in');
      assert.equal(signIn.status, 204);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^session=/);
      const answer = await post('/api/upload-token', cookie);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      const minted = (await answer.json()) as UploadTokenResponse;
      assert.match(minted.token, /^upt_/);
      assert.ok(minted.expiresAt > Date.now());
      assert.deepEqual(
        [minted.maxFiles, minted.maxFileSize, minted.types],
        [3, 5_000_000, ['image/*']],
      );
      // The token uploads, as the signed-in user, privately.
      const page = new FilehostClient({ endpoint: service.apiUrl, uploadToken: minted.token });
      const png = await solidImage('png', 4, 4);
      const record = await page.uploadFile({
        name: 'avatar.png',
        size: png.length,
        type: 'image/png',
        slice: (start: number, end: number) => new Uint8Array(png.subarray(start, end)),
      });
      assert.deepEqual([record.metadata.user, record.visibility], ['user-1', 'private']);
    } finally {
      child.kill();
      await once(child, 'exit').catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
      await service.close();
    }
  });
});
