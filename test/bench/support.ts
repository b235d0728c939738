import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { startRgw } from '../helpers/ceph-rgw.js';
import { startPostgres } from '../helpers/postgres.js';
import { scaleEnv } from '../helpers/scale.js';

/**
 * Runs `measure` with a checkout of `revision` beside this one (a detached git worktree
 * sharing this checkout's `node_modules`), removed afterwards: for benches that run the
 * service of a revision and of the working tree taking turns (`BENCH_BASELINE`).
 */
export async function withBaselineCheckout<T>(
  revision: string,
  measure: (checkout: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-baseline-'));
  const checkout = join(dir, 'base');
  execFileSync('git', ['worktree', 'add', '--detach', checkout, revision], { stdio: 'ignore' });
  try {
    await symlink(resolve('node_modules'), join(checkout, 'node_modules'));
    return await measure(checkout);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', checkout], { stdio: 'ignore' });
    await rm(dir, { recursive: true, force: true });
  }
}

/** The arithmetic mean of `values`. */
export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** The value below which `p` percent of the values lie (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * Starts a comparison server (plain node:http, @tus/server) as its own process; each prints
 * `PORT <n>` once it listens on loopback.
 */
export async function startPeer(
  script: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      const match = /PORT (\d+)/.exec(String(chunk));
      if (match?.[1]) resolve(Number(match[1]));
    });
  });
  return { port, child };
}

/** One line of the bench table: a median of filehost's, beside a contender's where there is one. */
export interface BenchRow {
  /** Which comparison of the bench issue, e.g. "big file through the browser". */
  comparison: string;
  /** What was measured, with its unit, e.g. "256 MiB upload, MiB/s". */
  measure: string;
  filehost: number;
  /** The contender (the practical limit or a peer), if this row compares. */
  peer?: { name: string; value: number };
  /**
   * The goal, on filehost / peer when there is a peer, else on filehost's value; `absolute`
   * judges filehost's value even beside a peer (a frame budget in ms, say).
   */
  goal?: { op: '>=' | '<='; target: number; absolute?: boolean };
  /** How many runs the median is of. */
  runs: number;
}

export interface BenchResult extends BenchRow {
  ratio: number | null;
  met: boolean | null;
}

export function resultOf(row: BenchRow): BenchResult {
  const ratio = row.peer ? row.filehost / row.peer.value : null;
  const judged = row.goal?.absolute ? row.filehost : (ratio ?? row.filehost);
  const met = row.goal
    ? row.goal.op === '>='
      ? judged >= row.goal.target
      : judged <= row.goal.target
    : null;
  return { ...row, ratio, met };
}

/** A number as the tables show it: about three significant digits (counts whole), grouped. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const digits =
    Number.isInteger(value) || Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** The rows as a Markdown table (what the README shows and the console prints). */
export function markdownTable(results: BenchResult[]): string {
  const lines = [
    '| comparison | measure | filehost | contender | ratio | goal |',
    '|---|---|---:|---|---:|---|',
  ];
  for (const r of results) {
    const peer = r.peer ? `${r.peer.name}: ${formatNumber(r.peer.value)}` : '';
    // Two significant digits below 0.01x (a page's bytes against thousands of times more), not 0.00x.
    const ratio =
      r.ratio === null
        ? ''
        : `${Math.abs(r.ratio) < 0.01 && r.ratio !== 0 ? r.ratio.toPrecision(2) : r.ratio.toFixed(2)}x`;
    const goal = r.goal
      ? `${r.goal.op} ${r.goal.target}${r.ratio === null || r.goal.absolute ? '' : 'x'} ${r.met ? 'met' : '**not met**'}`
      : '';
    // Element names in code spans: bare, Markdown would take them for HTML tags.
    const measure = r.measure.replace(/<([a-z-]+)>/g, '`<$1>`');
    lines.push(
      `| ${r.comparison} | ${measure} | ${formatNumber(r.filehost)} | ${peer} | ${ratio} | ${goal} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Prints a bench's rows as a table, and, under `npm run bench` (which names a file in
 * FILEHOST_BENCH_ROWS), appends them there as JSON lines for the combined table.
 */
export async function reportRows(rows: BenchRow[]): Promise<void> {
  const results = rows.map(resultOf);
  console.log(`\n${markdownTable(results)}\n`);
  const file = process.env.FILEHOST_BENCH_ROWS;
  if (file) await appendFile(file, results.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/**
 * The script-tag bundle's budgets, minified and gzipped (issue #30's decision on the size
 * budgets): what a page downloads before both elements render and take files (`filehost.js`);
 * what every page that uploads loads (with the upload engine, fetched on first use or when
 * the page is idle); and each chunk a page loads on use only (the folder reader, the camera
 * check, image shrinking, the part sender of large files, MD5), on its own.
 */
/**
 * 20 KiB. It was raised to 20.4 KiB for a while (#43 point 2's `script_missing`, then
 * upload tokens: 20,860 B at its most); #42 won it back by what loads when, not by
 * dropping anything: the words of the service's answers arrive with the first answer
 * (`en-service.ts`), the route table with the upload engine (`api/page-api.ts`), and the
 * rules both elements' styles had alike are written once: 20,441 B on 2026-11-27 (history in
 * test/bench/README.md).
 */
export const FIRST_LOAD_BUDGET_BYTES = 20 * 1024;
/**
 * With the upload engine, Uppy as published (no rewriting of it, nor of any dependency): the
 * build measured 42.2 KiB once the rewriting went, and issue #30 set 44 KiB. Bytes are won
 * back by design (our own code, what loads when), never by editing Uppy: 44,653 B on
 * 2026-11-26 (history in test/bench/README.md). 44.3 KiB since #43 point 2 (see
 * `FIRST_LOAD_BUDGET_BYTES`): 45,312 B; 44.5 KiB with upload tokens and the cap of 100
 * unfinished uploads (#40): 45,525 B; 44.6 KiB with the Link source's hook (#45, the
 * `sources` property and the import of its chunk): 45,589 B. 45 KiB with the batch upload
 * of small files (#46 point 3: the engine's side of it, `FilehostApi.uploadMany` and the
 * import of its chunk; the rest is a chunk on use): 46,018 B. #42 won it back by what loads
 * when (45,730 B, then lodash's ES modules and the resume memory's writes on use: 45,440 B),
 * and the budget is 44 KiB again since the whole memory of uploads across reloads is a chunk
 * fetched only once the browser holds its database (`upload-memory.ts`): 44,608 B on
 * 2026-11-27 (history in test/bench/README.md).
 */
export const TOTAL_BUDGET_BYTES = 44 * 1024;
/** Each on-use chunk on its own, hash-wasm's MD5 (WebCrypto has none) too. */
export const ON_USE_CHUNK_BUDGET_BYTES = 5 * 1024;
/**
 * The image editor's chunk (#57), fetched when an editor first opens: Cropper.js 2's custom
 * elements (canvas, image, selection, handle, shade: 10 KiB gzipped of it as published) and
 * the dialog: 14.5 KiB gzipped (14,895 B) on 2026-11-29. The one on-use chunk above 5 KiB, because a
 * well-kept cropper is worth more than our own (the issue asks for one).
 */
export const EDITOR_CHUNK_BUDGET_BYTES = 15 * 1024;
/** The image editor's chunk (the dialog and Cropper.js), see `EDITOR_CHUNK_BUDGET_BYTES`. */
export const EDITOR_CHUNK = /^filehost-image-editor-[\w-]+\.js$/;

/** The budget of one on-use chunk: the editor's, or any other's. */
export function onUseBudget(name: string): number {
  return EDITOR_CHUNK.test(name) ? EDITOR_CHUNK_BUDGET_BYTES : ON_USE_CHUNK_BUDGET_BYTES;
}
/**
 * Each language's words (`dist/locales/<tag>.js`), the one a page in that language fetches:
 * 3 KiB until #51 and #53, when Ukrainian (the longest) passed it with the words of the
 * scanner's and the location stripper's refusals, a failed token provider and an import's
 * limit. 4 KiB since the image editor's twenty words (#57): Ukrainian 3,644 B on 2026-11-29.
 */
export const LOCALE_BUDGET_BYTES = 4 * 1024;

/** The gzipped size of each shipped language in `dist/locales/` (`npm run build` first). */
export async function localeSizes(): Promise<{ name: string; gzipped: number }[]> {
  const names = (await readdir('dist/locales')).filter((name) => name.endsWith('.js')).sort();
  return Promise.all(
    names.map(async (name) => ({
      name: `locales/${name}`,
      gzipped: gzippedBytes(await readFile(`dist/locales/${name}`)),
    })),
  );
}

/** The chunk of the upload engine; every other chunk but `filehost.js` is a feature's. */
const ENGINE_CHUNK = /^filehost-upload-engine-[\w-]+\.js$/;

/**
 * The shipped `filehost.bundle.js`, everything in one file for a page author who copies one file
 * (#43): the first load and every chunk together, and (#53) every language, since nothing
 * sits beside it to fetch a page's own from: 57 KiB without the languages, their 14 files
 * 28 KiB gzipped together, within 90 KiB gzipped. 91 KiB since the languages' words of the
 * scanner's and the location stripper's refusals and of a failed token provider (#51, #53):
 * 92,394 B on 2026-11-29, over 90 KiB by those words alone (what loads when moves code
 * between files, and this one holds every file). 93 KiB since `<file-list>`'s placeholders
 * (#58: the ThumbHash decoder and their drawing, 2.1 KiB gzipped, an on-use chunk for the
 * script tag): 93,900 B with them. 113 KiB with the image editor (#57: Cropper.js 2's
 * elements and the dialog, 14.5 KiB gzipped, its loader 1.9 KiB and its words in every
 * language): 114,695 B on 2026-11-29. 114 KiB since images waiting for Edit/Upload are in
 * `files`, hold the form (a new word in every language) and are checked against `accept`
 * when added: 116,250 B. Not a promise of an issue: today's budget.
 */
export const ONE_FILE_BUDGET_BYTES = 114 * 1024;
export const ONE_FILE = 'filehost.bundle.js';

/**
 * Where the build puts the files a page loads (README: "copy the folder dist/script-tag/"):
 * the sizes are theirs. `dist/` holds the same code with a `sourceMappingURL` comment (for
 * the source maps beside it, which `bundle-size.ts` reads), bytes no page receives.
 */
export const SHIPPED_DIR = 'dist/script-tag';

/** The gzipped size of the shipped `filehost.bundle.js` (`npm run build` first). */
export async function oneFileSize(): Promise<number> {
  return gzippedBytes(await readFile(`${SHIPPED_DIR}/${ONE_FILE}`));
}

/** The files of the script-tag bundle in `dist/`: `filehost.js` and the chunks it imports. */
export async function scriptTagFiles(): Promise<string[]> {
  const names = await readdir('dist');
  return names.filter((name) => /^filehost(-[\w-]+)?\.js$/.test(name)).sort();
}

/** The gzipped sizes of the script-tag bundle as a page meets it (`npm run build` first). */
export async function scriptTagSizes(): Promise<{
  firstLoad: number;
  /** `filehost.js` and the upload engine: what every page that uploads loads. */
  total: number;
  /** Chunks loaded only when a page uses a feature (a dropped folder, `capture`, MD5). */
  features: { name: string; gzipped: number }[];
  files: { name: string; gzipped: number }[];
}> {
  const files = await Promise.all(
    (await scriptTagFiles()).map(async (name) => ({
      name,
      gzipped: gzippedBytes(await readFile(`${SHIPPED_DIR}/${name}`)),
    })),
  );
  const entry = files.find((file) => file.name === 'filehost.js');
  if (!entry) throw new Error('No dist/filehost.js: run `npm run build` first.');
  // filehost.js imports nothing statically (its build keeps shared code in it).
  const entryCode = await readFile('dist/filehost.js', 'utf8');
  if (/^import\s*["{*\w]/m.test(entryCode) || /\bfrom\s*["']\.\//.test(entryCode)) {
    throw new Error(
      'dist/filehost.js imports another file statically: count it in the first load.',
    );
  }
  const engine = files.filter((file) => ENGINE_CHUNK.test(file.name));
  if (engine.length !== 1) throw new Error('Expected one upload engine chunk in dist/.');
  return {
    firstLoad: entry.gzipped,
    total: entry.gzipped + (engine[0]?.gzipped ?? 0),
    features: files.filter((file) => file !== entry && !ENGINE_CHUNK.test(file.name)),
    files,
  };
}

/** Gzipped size as the budget counts it: level 9, what a server's static gzip would send. */
export function gzippedBytes(content: Uint8Array): number {
  return gzipSync(content, { level: 9 }).length;
}

/**
 * A new tab on `origin` (a page with one `<file-uploader>` and the bundle), once the element
 * is defined, pointed at the service with its publishable key.
 */
export async function openUploaderPage(
  browser: Browser,
  origin: string,
  service: { apiUrl: string; publishableKey: string },
): Promise<Page> {
  const tab = await browser.newPage();
  await tab.goto(origin);
  await tab.waitForFunction(() => customElements.get('file-uploader'));
  await tab.evaluate(
    ([endpoint, apiKey]) =>
      Object.assign(document.querySelector('file-uploader') as object, { endpoint, apiKey }),
    [service.apiUrl, service.publishableKey] as const,
  );
  return tab;
}

/**
 * PostgreSQL and a Ceph RGW whose memstore holds every upload of the run (`uploadBytes`, all
 * of them: the bucket is never emptied, RGW frees deleted objects' space hours later), and
 * the settings of a service on them.
 */
export async function startBenchScale(origins: string[], uploadBytes: number) {
  const [pg, rgw] = await Promise.all([
    startPostgres(),
    startRgw({ memstoreBytes: Math.ceil(uploadBytes * 1.25) + 2 * 1024 ** 3 }),
  ]);
  const stop = async () => {
    if (!('skip' in pg)) await pg.stop();
    if (!('skip' in rgw)) await rgw.stop();
  };
  if ('skip' in pg || 'skip' in rgw) {
    await stop();
    throw new Error(('skip' in pg ? pg.skip : '') || ('skip' in rgw ? rgw.skip : ''));
  }
  // `another`: the settings of one more service on them, with a database and bucket of its own.
  return { env: await scaleEnv(pg, rgw, origins), another: () => scaleEnv(pg, rgw, origins), stop };
}
