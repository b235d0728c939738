import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { eachMapping, TraceMap } from '@jridgewell/trace-mapping';
const file = process.argv[2];
const code = readFileSync(file, 'utf8');
const map = new TraceMap(readFileSync(file + '.map', 'utf8'));
const lines = code.split('\n');
const segs: { line: number; col: number; src: string | null }[] = [];
eachMapping(map, (m) => segs.push({ line: m.generatedLine, col: m.generatedColumn, src: m.source }));
const by = new Map<string, string>();
for (let i = 0; i < segs.length; i++) {
  const s = segs[i]; const n = segs[i + 1];
  const text = n && n.line === s.line ? lines[s.line - 1].slice(s.col, n.col) : lines[s.line - 1].slice(s.col);
  const k = String(s.src).replace(/.*\/(src|node_modules)\//, '$1/');
  by.set(k, (by.get(k) ?? '') + text);
}
const total = gzipSync(code, { level: 9 }).length;
const rows = [...by].map(([k, t]) => {
  // marginal gzip: remove this module's text
  return [k, t.length, gzipSync(t, {level:9}).length] as const;
}).sort((a, b) => b[1] - a[1]);
for (const r of rows.slice(0, 40)) console.log(String(r[1]).padStart(7), String(r[2]).padStart(6), r[0]);
console.log('total gz', total);
