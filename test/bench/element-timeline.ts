/**
 * `npx tsx test/bench/element-timeline.ts DIR`: the uploads traced by
 * `BENCH_TRACE_DIR=DIR npm run bench:element-ab`, file by file and over time, side by side:
 * when each sign call was answered and how many files it released, how many PUTs were in
 * flight at once (the browser opens 6 connections to a host; the others wait in it), how
 * long a file waited between its sign answer and its PUT, how widely the PUT answers spread,
 * and how many files each complete call carried. Timed uploads only; `WARMUP=1` reads the
 * warm-up uploads instead.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileTimeline, type TracedRequest } from './element-trace.js';
import { median } from './support.js';

interface Traced {
  started: number;
  requests: TracedRequest[];
}

/** One upload's shape, in ms from its start. */
interface Shape {
  total: number;
  /** Each sign call: when it was answered, and how many files it signed. */
  signs: string;
  /** Sign answered -> PUT sent, per file: 10th, 50th, 90th percentile. */
  signToPut: [number, number, number];
  /** PUT sent -> answered, per file. */
  putTime: [number, number, number];
  /** First PUT sent, first and last PUT answered. */
  firstPut: number;
  putAnsweredSpan: [number, number];
  /** PUTs in flight: time-weighted mean while any was, and the most at once. */
  putsInFlight: [number, number];
  /** Calls to the service (sign, PUT, complete) in flight: the same. */
  callsInFlight: [number, number];
  /** Files per complete call, in the order they were asked. */
  completeSizes: number[];
  /** PUT answered -> complete answered, per file (median). */
  putToDone: number;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Time-weighted mean and maximum of how many intervals overlap, over the time any does. */
function inFlight(intervals: [number, number][]): [number, number] {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]);
  edges.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  let level = 0;
  let most = 0;
  let area = 0;
  let busy = 0;
  let last = 0;
  for (const [time = 0, step = 0] of edges) {
    if (level > 0) {
      area += level * (time - last);
      busy += time - last;
    }
    level += step;
    most = Math.max(most, level);
    last = time;
  }
  return [busy > 0 ? area / busy : 0, most];
}

function shapeOf({ started, requests }: Traced): Shape {
  const { files } = fileTimeline(requests, started);
  const at = (time: number | null) => (time ?? Number.NaN) - started;
  const answered = requests.filter((request) => request.end !== null);
  const path = (request: TracedRequest) => new URL(request.url, 'http://page').pathname;
  const puts = answered.filter((request) => request.kind === 'xhr' && request.method === 'PUT');
  const service = answered.filter(
    (request) =>
      (request.kind === 'xhr' && request.method === 'PUT') ||
      path(request).endsWith('/v1/uploads/sign') ||
      path(request).endsWith('/complete'),
  );
  const signs = new Map<number, number>();
  for (const file of files) signs.set(file.signAnswered, (signs.get(file.signAnswered) ?? 0) + 1);
  const completes = new Map<number, number>();
  for (const file of files)
    completes.set(file.completeAsked, (completes.get(file.completeAsked) ?? 0) + 1);
  const per = (pick: (file: (typeof files)[number]) => number): [number, number, number] => {
    const values = files.map(pick);
    return [percentile(values, 10), percentile(values, 50), percentile(values, 90)];
  };
  const putAnswers = files.map((file) => file.putAnswered);
  return {
    total: Math.max(...files.map((file) => file.completeAnswered)),
    signs: [...signs]
      .sort((a, b) => a[0] - b[0])
      .map(([when, count]) => `${count}@${when.toFixed(0)}`)
      .join(' '),
    signToPut: per((file) => file.putSent - file.signAnswered),
    putTime: per((file) => file.putAnswered - file.putSent),
    firstPut: Math.min(...files.map((file) => file.putSent)),
    putAnsweredSpan: [Math.min(...putAnswers), Math.max(...putAnswers)],
    putsInFlight: inFlight(puts.map((request) => [at(request.start), at(request.end)])),
    callsInFlight: inFlight(service.map((request) => [at(request.start), at(request.end)])),
    completeSizes: [...completes].sort((a, b) => a[0] - b[0]).map(([, count]) => count),
    putToDone: median(files.map((file) => file.completeAnswered - file.putAnswered)),
  };
}

const f = (value: number) => value.toFixed(0);
const f1 = (value: number) => value.toFixed(1);

async function main(): Promise<void> {
  const dir = process.argv[2];
  if (!dir)
    throw new TypeError('usage: element-timeline.ts DIR (BENCH_TRACE_DIR of bench:element-ab)');
  const warmup = process.env.WARMUP === '1';
  const names = (await readdir(dir))
    .filter((name) => name.endsWith('.json') && name.includes('warmup') === warmup)
    .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const shapes: Record<string, Shape[]> = { A: [], B: [] };
  for (const name of names) {
    const shape = shapeOf(JSON.parse(await readFile(join(dir, name), 'utf8')) as Traced);
    shapes[name.slice(0, 1)]?.push(shape);
    console.log(
      `${name}: ${f(shape.total)} ms; signs ${shape.signs}; first PUT ${f(shape.firstPut)}; sign->PUT ${shape.signToPut.map(f).join('/')}; PUT ${shape.putTime.map(f).join('/')}; PUT answers ${shape.putAnsweredSpan.map(f).join('-')}; PUTs in flight ${f1(shape.putsInFlight[0])} (most ${shape.putsInFlight[1]}), calls ${f1(shape.callsInFlight[0])} (most ${shape.callsInFlight[1]}); PUT->done ${f(shape.putToDone)}; completes ${shape.completeSizes.length}: ${shape.completeSizes.join(' ')}`,
    );
  }
  const detail = process.env.DETAIL;
  if (detail) {
    // One upload's requests, reads and digests in the order they began.
    const { started, requests } = JSON.parse(
      await readFile(join(dir, `${detail}.json`), 'utf8'),
    ) as Traced;
    for (const request of requests) {
      const what =
        request.kind === 'fetch' ? new URL(request.url, 'http://page').pathname : request.url;
      const files =
        request.kind === 'fetch' && request.body?.startsWith('{"') ? request.body.length : '';
      console.log(
        `  ${f1(request.start - started)} -> ${request.end === null ? '-' : f1(request.end - started)} ${request.kind} ${request.method} ${what.slice(-40)} ${files}`,
      );
    }
  }
  console.log('Medians over the uploads: A | B');
  const row = (label: string, pick: (shape: Shape) => number, format = f) =>
    console.log(
      `  ${label}: ${format(median((shapes.A ?? []).map(pick)))} | ${format(median((shapes.B ?? []).map(pick)))}`,
    );
  row('total ms', (shape) => shape.total);
  row('first PUT sent', (shape) => shape.firstPut);
  row('sign answered -> PUT sent, median file', (shape) => shape.signToPut[1]);
  row('sign answered -> PUT sent, 90th percentile', (shape) => shape.signToPut[2]);
  row('PUT sent -> answered, median file', (shape) => shape.putTime[1]);
  row('PUT sent -> answered, 90th percentile', (shape) => shape.putTime[2]);
  row('first PUT answered', (shape) => shape.putAnsweredSpan[0]);
  row('last PUT answered', (shape) => shape.putAnsweredSpan[1]);
  row('PUTs in flight, mean', (shape) => shape.putsInFlight[0], f1);
  row('PUTs in flight, most', (shape) => shape.putsInFlight[1]);
  row('calls in flight, mean', (shape) => shape.callsInFlight[0], f1);
  row('complete calls', (shape) => shape.completeSizes.length);
  row('PUT answered -> complete answered, median file', (shape) => shape.putToDone);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
