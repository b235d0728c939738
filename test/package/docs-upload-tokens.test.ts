import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

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
