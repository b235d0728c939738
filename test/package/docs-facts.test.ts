import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { API_ERROR_STATUS } from '../../src/api/errors.js';
import {
  FIRST_LOAD_BUDGET_BYTES,
  LOCALE_BUDGET_BYTES,
  ON_USE_CHUNK_BUDGET_BYTES,
  TOTAL_BUDGET_BYTES,
} from '../bench/support.js';
import { documentFiles } from '../helpers/markdown.js';

/**
 * What keeps the documents true beyond their code blocks (docs-code.test.ts): links and
 * anchors resolve, every `FILEHOST_*` variable the service reads is documented, no date or
 * line count sits in README.md or docs/ (history lives in test/bench/README.md), and the
 * size budgets the docs state are the ones the size test enforces.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const LINKED = [...documentFiles(ROOT), 'test/bench/README.md'];

/** The text outside fenced code blocks (links and dates inside code are code). */
function prose(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8').replace(/^( *)(`{3,})[^\n]*\n[\s\S]*?^\1\2$/gm, '');
}

/** GitHub's anchors for a Markdown file's headings. */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const match of prose(file).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (match[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('docs: links, variables, dates, budgets', () => {
  it('every relative link and #anchor between the documents resolves', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const file of LINKED) {
      for (const match of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
        checked++;
        const [path = '', anchor] = target.split('#');
        const linked = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
        if (!existsSync(linked)) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (anchor !== undefined && !anchors(relative(ROOT, linked)).has(anchor)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    assert.deepEqual(broken, []);
    assert.ok(checked >= 30, `only ${checked} links found`);
  });

  it('every FILEHOST_* variable the service reads is in docs/service.md', () => {
    const documented = readFileSync(join(ROOT, 'docs/service.md'), 'utf8');
    const read = new Set<string>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      if (file.endsWith('crash-points.ts')) continue; // the crash tests' fault injection
      for (const match of readFileSync(file, 'utf8').matchAll(
        /FILEHOST_[A-Z0-9_]*[A-Z0-9](?![A-Z0-9_*])/g,
      )) {
        read.add(match[0]);
      }
    }
    assert.ok(read.size >= 30, `only ${read.size} variables found in src`);
    const missing = [...read].filter((name) => !documented.includes(`\`${name}\``)).sort();
    assert.deepEqual(missing, [], 'variables read in src/ but not documented in docs/service.md');
  });

  it('README.md and docs/ carry no dates and no line counts (history is in test/bench/README.md)', () => {
    const found: string[] = [];
    for (const file of documentFiles(ROOT)) {
      for (const match of prose(file).matchAll(/\b20\d\d-\d\d-\d\d\b|\b\d[\d,]* lines\b/g)) {
        found.push(`${file}: ${match[0]}`);
      }
    }
    assert.deepEqual(found, []);
  });

  it('docs/benchmarks.md states the size budgets that the size test enforces', () => {
    const text = readFileSync(join(ROOT, 'docs/benchmarks.md'), 'utf8').replace(/\s+/g, ' ');
    for (const [what, bytes] of [
      ['first load', FIRST_LOAD_BUDGET_BYTES],
      ['with the upload engine', TOTAL_BUDGET_BYTES],
      ['each on-use chunk', ON_USE_CHUNK_BUDGET_BYTES],
      ['each language', LOCALE_BUDGET_BYTES],
    ] as const) {
      assert.match(text, new RegExp(`${what}[^,]* at most ${bytes / 1024} KiB`), what);
    }
  });

  it('docs/api.md names every path of the OpenAPI document and every error code', () => {
    const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const openapi = JSON.parse(readFileSync(join(ROOT, 'src/api/openapi.json'), 'utf8')) as {
      paths: Record<string, unknown>;
    };
    const paths = Object.keys(openapi.paths).filter((path) => path.startsWith('/v1/'));
    assert.ok(paths.length >= 10);
    const missing = paths
      .map((path) => path.replace(/\{(\w+)\}/g, ':$1'))
      .filter((path) => !api.includes(path));
    assert.deepEqual(missing, [], 'API paths not in docs/api.md');
    const codes = Object.keys(API_ERROR_STATUS).filter((code) => !api.includes(`\`${code}\``));
    assert.deepEqual(codes, [], 'error codes not in docs/api.md');
  });

  it('the README stays a front door: under 400 lines, the rest in docs/', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').split('\n').length;
    assert.ok(lines < 400, `README.md has ${lines} lines: move reference text to docs/`);
  });
});
