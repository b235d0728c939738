import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { type CodeBlock, codeBlocks, documentFiles } from '../helpers/markdown.js';

/**
 * Every TypeScript and TSX block of README.md and docs/*.md compiles under `strict`, as a
 * reader's own file would: each block is a module of its own in a temp project whose
 * `filehost`, `filehost/client`, `filehost/react`, … resolve to this repository's sources
 * (package.json's `exports`, `dist/lib/x.d.ts` read as `src/x.ts`), so a snippet that uses
 * something it never declares, or a call the API no longer has, fails here with its file
 * and line. A `vue` block's `<script setup lang="ts">` is compiled the same way.
 *
 * A block meant to stay a fragment says so on its fence (```ts fragment) and opens with a
 * `// Fragment: <why>` comment; it is listed, not compiled. JavaScript blocks are refused:
 * written as TypeScript they are checked.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const COMPILED = new Set(['ts', 'tsx']);
const REFUSED = new Set(['js', 'jsx', 'javascript', 'mjs', 'cjs']);

/** `filehost/…` specifiers to this repository's sources, from package.json's `exports`. */
function pathsFromExports(): Record<string, string[]> {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const paths: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(pkg.exports)) {
    const target = typeof value === 'string' ? value : value.types;
    if (target === undefined) continue;
    const source = target.startsWith('./dist/lib/')
      ? target.replace('./dist/lib/', './src/').replace(/\.d\.ts$/, '.ts')
      : target;
    if (!source.startsWith('./src/')) continue; // built files (the script-tag bundle)
    paths[`${pkg.name}${key.slice(1)}`] = [join(ROOT, source)];
  }
  return paths;
}

/** The TypeScript a block holds: the block itself, or a Vue block's `<script setup lang="ts">`. */
function typescriptOf(block: CodeBlock): { source: string; firstLine: number } | null {
  if (COMPILED.has(block.language)) return { source: block.text, firstLine: block.line };
  if (block.language !== 'vue') return null;
  const match = /<script setup lang="ts">\n([\s\S]*?)<\/script>/.exec(block.text);
  if (!match || match.index === undefined) return null;
  const before = block.text.slice(0, match.index).split('\n').length;
  return { source: match[1] ?? '', firstLine: block.line + before };
}

/**
 * Compiles `blocks` together (each its own module) and answers one line per error, as
 * `<markdown file>:<line>: TS<code> <message>`.
 */
function compile(blocks: CodeBlock[]): string[] {
  // Inside the repository, so that `react`, `vue`, `vite` and `@types/node` resolve from its
  // node_modules as they would from an app's.
  const dir = mkdtempSync(join(ROOT, '.docs-code-'));
  try {
    const origins = new Map<string, { block: CodeBlock; firstLine: number }>();
    for (const block of blocks) {
      const code = typescriptOf(block);
      if (!code) continue;
      const extension = block.language === 'tsx' ? 'tsx' : 'ts';
      const name = join(dir, `${block.file.replace(/[/.]/g, '_')}_${block.line}.${extension}`);
      // `export {}` makes a block without imports a module too (top-level await, own scope).
      writeFileSync(name, `${code.source}\nexport {};\n`);
      origins.set(name, { block, firstLine: code.firstLine });
    }
    const program = ts.createProgram([...origins.keys()], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
      types: ['node'],
      jsx: ts.JsxEmit.ReactJSX,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      resolveJsonModule: true,
      // What this repository's own sources (reached through `paths`) are compiled with.
      experimentalDecorators: true,
      useDefineForClassFields: false,
      paths: pathsFromExports(),
    });
    const errors: string[] = [];
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      const origin = diagnostic.file ? origins.get(resolve(diagnostic.file.fileName)) : undefined;
      if (!diagnostic.file || diagnostic.start === undefined || !origin) {
        // An error outside the blocks (in src, reached through them) is an error too.
        const where = diagnostic.file ? diagnostic.file.fileName.replace(`${ROOT}/`, '') : '';
        errors.push(`${where}: TS${diagnostic.code} ${text}`);
        continue;
      }
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      const where = `${origin.block.file}:${origin.firstLine + line}`;
      errors.push(`${where} (block at line ${origin.block.line}): TS${diagnostic.code} ${text}`);
    }
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const blocks = documentFiles(ROOT).flatMap((file) => codeBlocks(ROOT, file));

describe('docs: TypeScript blocks compile under strict', () => {
  it('finds the blocks it checks (README.md and docs/*.md, ts and tsx)', () => {
    const compiled = blocks.filter((block) => typescriptOf(block) && block.flags !== 'fragment');
    assert.ok(compiled.length >= 10, `only ${compiled.length} TypeScript blocks found`);
    assert.ok(compiled.some((block) => block.file === 'README.md' && block.language === 'tsx'));
    assert.ok(compiled.some((block) => block.language === 'vue'));
  });

  it('every TypeScript, TSX and Vue <script setup lang="ts"> block compiles', () => {
    const errors = compile(blocks.filter((block) => block.flags !== 'fragment'));
    assert.deepEqual(errors, [], `Documentation code that does not compile:\n${errors.join('\n')}`);
  });

  it('a block that stops compiling fails with its file and line', () => {
    const broken: CodeBlock = {
      file: 'README.md',
      line: 40,
      language: 'ts',
      flags: '',
      section: 'a test',
      text: "import { FilehostClient } from 'filehost/client';\n\nconst key: string = process.env.KEY;\nconst n: number = new FilehostClient({ endpoint: 'x', apiKey: 'k' });",
    };
    const errors = compile([broken]);
    assert.equal(errors.length, 2, errors.join('\n'));
    // `process.env.KEY` is `string | undefined`; a client is not a number.
    assert.match(errors[0] ?? '', /^README\.md:42 \(block at line 40\): TS2322 /);
    assert.match(errors[1] ?? '', /^README\.md:43 \(block at line 40\): TS2322 /);
  });

  it('a fragment is marked on its fence and says why it is one', () => {
    for (const block of blocks.filter((b) => b.flags === 'fragment')) {
      assert.match(
        block.text,
        /^\/\/ Fragment: \S.{20,}/,
        `${block.file}:${block.line}: a fragment must open with "// Fragment: <why>"`,
      );
    }
  });

  it('no JavaScript blocks: a snippet is TypeScript, so that it is compiled', () => {
    const refused = blocks.filter((block) => REFUSED.has(block.language));
    assert.deepEqual(
      refused.map((block) => `${block.file}:${block.line} (${block.language})`),
      [],
    );
  });
});
