/**
 * `npm run size`: the script-tag bundle (from `npm run build`) minified and gzipped: what a
 * page loads before both elements render and take files (`dist/filehost.js`, budget 20 KiB),
 * what every page that uploads loads (with the upload engine, budget 44 KiB) and each chunk
 * loaded on use only (budget 5 KiB each), with what each file is made of: each part's
 * minified bytes (from the bundle's source map) and what it costs gzipped, which is what
 * deleting its bytes from the bundle saves (gzip shares context across parts, so these do
 * not add up to the total). And the one-file bundle (`dist/filehost.bundle.js`, budget
 * 60 KiB) for pages that copy one file.
 */
import { readFile } from 'node:fs/promises';
import { eachMapping, TraceMap } from '@jridgewell/trace-mapping';
import {
  FIRST_LOAD_BUDGET_BYTES,
  gzippedBytes,
  LOCALE_BUDGET_BYTES,
  localeSizes,
  ONE_FILE,
  ONE_FILE_BUDGET_BYTES,
  oneFileSize,
  onUseBudget,
  reportRows,
  scriptTagSizes,
  TOTAL_BUDGET_BYTES,
} from './support.js';

function groupOf(source: string | null): string {
  if (source === null) return 'bundler runtime (unmapped)';
  if (source.includes('node_modules/@uppy/')) return 'Uppy (core, xhr-upload)';
  if (/node_modules\/(lit|lit-html|lit-element|@lit)\//.test(source)) return 'Lit';
  if (source.includes('node_modules/')) return "Uppy's dependencies";
  if (source.includes('src/elements/file-uploader/')) return '<file-uploader>';
  if (source.includes('src/elements/upload-engine/')) return "<file-uploader>'s engine";
  if (source.includes('src/elements/file-list/')) return '<file-list>';
  if (/src\/(client|api)\//.test(source)) return 'client and contract';
  return 'shared helpers, entry';
}

async function main(): Promise<void> {
  const { firstLoad, total, features, files } = await scriptTagSizes();
  const kib = (bytes: number) => (bytes / 1024).toFixed(1);
  const judged = (bytes: number, budget: number) =>
    `budget ${budget / 1024} KiB: ${bytes <= budget ? 'within' : `${kib(bytes - budget)} KiB over`}`;
  console.log(
    `first load (filehost.js): ${kib(firstLoad)} KiB gzipped (${judged(firstLoad, FIRST_LOAD_BUDGET_BYTES)})`,
  );
  console.log(
    `with the upload engine (every page that uploads): ${kib(total)} KiB gzipped (${judged(total, TOTAL_BUDGET_BYTES)})`,
  );
  for (const feature of features) {
    console.log(
      `on use only, ${feature.name}: ${kib(feature.gzipped)} KiB gzipped (${judged(feature.gzipped, onUseBudget(feature.name))})`,
    );
  }
  const oneFile = await oneFileSize();
  console.log(
    `everything in one file (${ONE_FILE}): ${kib(oneFile)} KiB gzipped (${judged(oneFile, ONE_FILE_BUDGET_BYTES)})`,
  );
  const locales = await localeSizes();
  for (const locale of locales) {
    console.log(
      `on use only, ${locale.name} (a page in that language): ${kib(locale.gzipped)} KiB gzipped (${judged(locale.gzipped, LOCALE_BUDGET_BYTES)})`,
    );
  }
  for (const file of [...files.map((f) => f.name), ONE_FILE]) await breakdown(file);
  await reportRows([
    {
      comparison: 'the elements themselves',
      measure: 'script-tag first load (filehost.js), KiB gzipped',
      filehost: firstLoad / 1024,
      goal: { op: '<=', target: FIRST_LOAD_BUDGET_BYTES / 1024 },
      runs: 1,
    },
    {
      comparison: 'the elements themselves',
      measure: 'script-tag bundle with the upload engine, KiB gzipped',
      filehost: total / 1024,
      goal: { op: '<=', target: TOTAL_BUDGET_BYTES / 1024 },
      runs: 1,
    },
    {
      comparison: 'the elements themselves',
      measure: `everything in one file (${ONE_FILE}), KiB gzipped`,
      filehost: oneFile / 1024,
      goal: { op: '<=', target: ONE_FILE_BUDGET_BYTES / 1024 },
      runs: 1,
    },
    ...features.map((feature) => ({
      comparison: 'the elements themselves',
      measure: `on use only: ${feature.name.replace(/-[\w-]{8}\.js$/, '')}, KiB gzipped`,
      filehost: feature.gzipped / 1024,
      goal: { op: '<=' as const, target: onUseBudget(feature.name) / 1024 },
      runs: 1,
    })),
    ...locales.map((locale) => ({
      comparison: 'the elements themselves',
      measure: `on use only: ${locale.name}, KiB gzipped`,
      filehost: locale.gzipped / 1024,
      goal: { op: '<=' as const, target: LOCALE_BUDGET_BYTES / 1024 },
      runs: 1,
    })),
  ]);
}

/** One file of the bundle by part, from its source map. */
async function breakdown(name: string): Promise<void> {
  const [bundle, map] = await Promise.all([
    readFile(`dist/${name}`, 'utf8'),
    readFile(`dist/${name}.map`, 'utf8'),
  ]);
  const gzipped = gzippedBytes(Buffer.from(bundle));
  console.log(
    `\ndist/${name}: ${(Buffer.byteLength(bundle) / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped`,
  );
  // Which part each character of the bundle comes from, by the source map.
  const lineStarts = [0];
  for (let i = 0; i < bundle.length; i++) if (bundle[i] === '\n') lineStarts.push(i + 1);
  const mappings: { at: number; group: string }[] = [];
  eachMapping(new TraceMap(map), (m) => {
    mappings.push({
      at: (lineStarts[m.generatedLine - 1] ?? 0) + m.generatedColumn,
      group: groupOf(m.source),
    });
  });
  mappings.sort((a, b) => a.at - b.at);
  const owner: string[] = new Array(bundle.length).fill(groupOf(null));
  mappings.forEach(({ at, group }, i) => {
    const end = mappings[i + 1]?.at ?? bundle.length;
    for (let k = at; k < end; k++) owner[k] = group;
  });
  const parts = [...new Set(owner)].map((group) => {
    let rest = '';
    let bytes = 0;
    for (let k = 0; k < bundle.length; k++) {
      if (owner[k] === group) bytes++;
      else rest += bundle[k];
    }
    return { group, bytes, cost: gzipped - gzippedBytes(Buffer.from(rest)) };
  });
  for (const { group, bytes, cost } of parts.sort((a, b) => b.cost - a.cost)) {
    console.log(
      `  ${group.padEnd(30)} ${(bytes / 1024).toFixed(1).padStart(6)} KiB minified ${(cost / 1024).toFixed(1).padStart(5)} KiB gzipped`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
