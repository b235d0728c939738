/**
 * `npm run size`: the script-tag bundle (`dist/filehost.js`, from `npm run build`)
 * minified and gzipped, against the 32 KiB budget, with what it is made of.
 */
import { readFile } from 'node:fs/promises';
import {
  BUNDLE_BUDGET_BYTES as BUDGET,
  gzippedBytes,
  reportRows,
  scriptTagMetafile,
} from './support.js';

async function main(): Promise<void> {
  const bundle = await readFile('dist/filehost.js').catch(() => {
    throw new Error('No dist/filehost.js: run `npm run build` first.');
  });
  const gzipped = gzippedBytes(bundle);
  console.log(
    `dist/filehost.js: ${(bundle.length / 1024).toFixed(1)} KiB minified, ${(gzipped / 1024).toFixed(1)} KiB gzipped (budget ${BUDGET / 1024} KiB: ${gzipped <= BUDGET ? 'within' : `${((gzipped - BUDGET) / 1024).toFixed(1)} KiB over`})`,
  );
  // Where the bytes come from: esbuild's view of the same entry.
  const metafile = await scriptTagMetafile();
  const inputs = Object.values(metafile.outputs)[0]?.inputs ?? {};
  const groups = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(inputs)) {
    const group = path.includes('node_modules/@uppy')
      ? 'Uppy (core, xhr-upload)'
      : path.includes('node_modules/lit') || path.includes('node_modules/@lit')
        ? 'Lit'
        : path.includes('node_modules')
          ? "Uppy's dependencies (lodash, …)"
          : path.startsWith('src/elements/file-uploader')
            ? '<file-uploader>'
            : path.startsWith('src/elements/file-list')
              ? '<file-list>'
              : 'client, contract, shared';
    groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
  }
  for (const [group, bytes] of [...groups].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${group.padEnd(32)} ${(bytes / 1024).toFixed(1).padStart(6)} KiB minified`);
  }
  await reportRows([
    {
      comparison: 'the elements themselves',
      measure: 'script-tag bundle, KiB gzipped',
      filehost: gzipped / 1024,
      goal: { op: '<=', target: BUDGET / 1024 },
      runs: 1,
    },
  ]);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
