import type { CDPSession } from 'playwright-core';

/**
 * `BENCH_TRACE=1` of `bench:element-ab`: where each file's time goes, read from the page's
 * own requests, so that both trees are timed alike without a line of either changed. An
 * init script wraps the page's `fetch` and `XMLHttpRequest` and notes when each request
 * left and was answered (the page's clock); the sign answers name each upload and its part
 * URL, the PUTs go to that URL, and the complete calls name the uploads they complete, so
 * each file's steps line up: sign asked, sign answered, PUT sent, PUT answered (its last
 * byte acknowledged), complete asked, complete answered.
 */

/** One request as the page made it. */
export interface TracedRequest {
  /** `digest`: a WebCrypto digest; `read`: a Blob read whole (`arrayBuffer`), as for one. */
  kind: 'fetch' | 'xhr' | 'digest' | 'read' | 'longtask';
  method: string;
  url: string;
  /** Its body, when a string (the JSON calls). */
  body: string | null;
  /** performance.now() when it was made, and when its answer was read (null: never). */
  start: number;
  end: number | null;
  /** The answer's text (fetch only: the JSON calls). */
  answer: string | null;
  /** The headers set on an XMLHttpRequest, names in lower case. */
  headers?: Record<string, string>;
}

declare global {
  interface Window {
    __trace?: TracedRequest[];
    /** The page's timers by delay (ms), animation frames and IndexedDB writes, since the last read. */
    __timers?: Record<string, number>;
  }
}

/** Runs in the page before its scripts (Playwright's `addInitScript`): the wrappers. */
export function traceRequests(): void {
  const trace: TracedRequest[] = [];
  window.__trace = trace;
  const timers: Record<string, number> = {};
  window.__timers = timers;
  const pageTimeout = window.setTimeout;
  window.setTimeout = ((handler: TimerHandler, delay?: number, ...rest: unknown[]) => {
    const key = `timeout ${delay ?? 0}`;
    timers[key] = (timers[key] ?? 0) + 1;
    return pageTimeout(handler, delay, ...rest);
  }) as typeof setTimeout;
  // Uploads remembered across reloads (and forgotten again): IndexedDB writes.
  for (const method of ['put', 'delete'] as const) {
    const write = IDBObjectStore.prototype[method] as (...args: unknown[]) => IDBRequest;
    IDBObjectStore.prototype[method] = function (this: IDBObjectStore, ...args: unknown[]) {
      const key = `indexedDB ${method}`;
      timers[key] = (timers[key] ?? 0) + 1;
      return write.apply(this, args);
    } as never;
  }
  const pageFrame = window.requestAnimationFrame;
  window.requestAnimationFrame = (callback) => {
    timers.frame = (timers.frame ?? 0) + 1;
    return pageFrame(callback);
  };
  // The steps between a file's sign answer and its PUT: its bytes read, then hashed. (No
  // helper function: this script runs as written, without the bundler's name helper.)
  const digest = crypto.subtle?.digest;
  if (digest)
    crypto.subtle.digest = function (this: SubtleCrypto, algorithm, data) {
      const entry: TracedRequest = {
        kind: 'digest',
        method: '',
        url: String((data as ArrayBuffer).byteLength),
        body: null,
        start: performance.now(),
        end: null,
        answer: null,
      };
      trace.push(entry);
      return digest.call(this, algorithm, data).finally(() => {
        entry.end = performance.now();
      });
    } as typeof digest;
  const read = Blob.prototype.arrayBuffer;
  Blob.prototype.arrayBuffer = function (this: Blob) {
    const entry: TracedRequest = {
      kind: 'read',
      method: '',
      url: String(this.size),
      body: null,
      start: performance.now(),
      end: null,
      answer: null,
    };
    trace.push(entry);
    return read.call(this).finally(() => {
      entry.end = performance.now();
    });
  };
  // The page's main thread busy 50 ms or more at a time: what delays reading every answer.
  new PerformanceObserver((list) => {
    for (const task of list.getEntries()) {
      trace.push({
        kind: 'longtask',
        method: '',
        url: '',
        body: null,
        start: task.startTime,
        end: task.startTime + task.duration,
        answer: null,
      });
    }
  }).observe({ type: 'longtask' });
  const pageFetch = window.fetch;
  window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const entry: TracedRequest = {
      kind: 'fetch',
      method: init?.method ?? 'GET',
      url,
      body: typeof init?.body === 'string' ? init.body : null,
      start: performance.now(),
      end: null,
      answer: null,
    };
    trace.push(entry);
    const response = await pageFetch(input, init);
    void response
      .clone()
      .text()
      .then((text) => {
        entry.end = performance.now();
        entry.answer = text;
      });
    return response;
  };
  const open = XMLHttpRequest.prototype.open;
  const send = XMLHttpRequest.prototype.send;
  const setHeader = XMLHttpRequest.prototype.setRequestHeader;
  const opened = new WeakMap<
    XMLHttpRequest,
    { method: string; url: string; headers: Record<string, string> }
  >();
  XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, ...args: unknown[]) {
    opened.set(this, { method: String(args[0]), url: String(args[1]), headers: {} });
    return (open as (...rest: unknown[]) => void).apply(this, args);
  } as typeof open;
  XMLHttpRequest.prototype.setRequestHeader = function (this: XMLHttpRequest, name, value) {
    const request = opened.get(this);
    if (request) request.headers[name.toLowerCase()] = value;
    return setHeader.call(this, name, value);
  };
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, body) {
    const { method, url, headers } = opened.get(this) ?? { method: '', url: '', headers: {} };
    const entry: TracedRequest = {
      kind: 'xhr',
      method,
      url,
      body: null,
      start: performance.now(),
      end: null,
      answer: null,
      headers,
    };
    trace.push(entry);
    this.addEventListener('load', () => {
      entry.end = performance.now();
    });
    return send.call(this, body);
  };
}

interface SignedUpload {
  id: string;
  parts: { url: string; headers: Record<string, string> }[];
}

/** One file's steps, ms after the upload began (the files were added). */
export interface FileSteps {
  signAsked: number;
  signAnswered: number;
  putSent: number;
  putAnswered: number;
  completeAsked: number;
  completeAnswered: number;
}

/** What one upload's trace says: the median of each step's time, and the calls made. */
export interface TraceSummary {
  files: number;
  signCalls: number;
  putCalls: number;
  completeCalls: number;
  /** Median ms per file: each gap between two steps. */
  gaps: Record<string, number>;
  /** Median ms: when files' steps happened, from the start. */
  at: Record<string, number>;
  /** Ms from the start: when the last file's step happened. */
  last: Record<string, number>;
  /** The page's timers by delay, and its animation frames (`frame`). */
  timers: Record<string, number>;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * A part as its PUT goes: its URL, and the signature header of the local store, whose parts
 * all go to one URL (`PUT /v1/parts`) with their credential in headers.
 */
const partKey = (url: string, headers: Record<string, string>) => {
  const signature = Object.entries(headers).find(
    ([name]) => name.toLowerCase() === 'x-filehost-signature',
  );
  return `${url} ${signature?.[1] ?? ''}`;
};

/** One upload's requests, file by file: each file's steps, and the calls made. */
export interface FileTimeline {
  /** The files whose every step was seen, in the order they were signed. */
  files: FileSteps[];
  signCalls: number;
  putCalls: number;
  completeCalls: number;
}

/** Lines up each file's steps from one upload's requests (begun at `started`). */
export function fileTimeline(trace: TracedRequest[], started: number): FileTimeline {
  const steps = new Map<string, Partial<FileSteps>>();
  const byPartUrl = new Map<string, string>();
  const stepsOf = (id: string) => {
    const found = steps.get(id) ?? {};
    steps.set(id, found);
    return found;
  };
  const at = (time: number | null) => (time === null ? Number.NaN : time - started);
  let signCalls = 0;
  let putCalls = 0;
  let completeCalls = 0;
  for (const request of trace) {
    const path = new URL(request.url, 'http://page').pathname;
    if (request.kind === 'fetch' && path.endsWith('/v1/uploads/sign')) {
      signCalls++;
      const answer = request.answer ? (JSON.parse(request.answer) as unknown) : null;
      const signed =
        answer && typeof answer === 'object' && 'uploads' in answer
          ? (answer as { uploads: SignedUpload[] }).uploads
          : [answer as SignedUpload];
      for (const upload of signed) {
        if (!upload?.id) continue;
        Object.assign(stepsOf(upload.id), {
          signAsked: at(request.start),
          signAnswered: at(request.end),
        });
        for (const part of upload.parts) byPartUrl.set(partKey(part.url, part.headers), upload.id);
      }
    } else if (request.kind === 'xhr' && request.method === 'PUT') {
      putCalls++;
      const id = byPartUrl.get(partKey(request.url, request.headers ?? {}));
      if (id)
        Object.assign(stepsOf(id), { putSent: at(request.start), putAnswered: at(request.end) });
    } else if (request.kind === 'fetch' && path.endsWith('/complete')) {
      completeCalls++;
      const single = /\/v1\/uploads\/([^/]+)\/complete$/.exec(path);
      const ids = single
        ? [decodeURIComponent(single[1] ?? '')]
        : (
            JSON.parse(request.body ?? '{"uploads":[]}') as { uploads: { id: string }[] }
          ).uploads.map((upload) => upload.id);
      for (const id of ids) {
        Object.assign(stepsOf(id), {
          completeAsked: at(request.start),
          completeAnswered: at(request.end),
        });
      }
    }
  }
  const files = [...steps.values()].filter(
    (file): file is FileSteps =>
      file.signAsked !== undefined &&
      file.putSent !== undefined &&
      file.completeAsked !== undefined,
  );
  return { files, signCalls, putCalls, completeCalls };
}

/** What one upload's requests say (begun at `started`): each step's median over the files. */
export function summarize(
  trace: TracedRequest[],
  started: number,
  timers: Record<string, number> = {},
): TraceSummary {
  const { files, signCalls, putCalls, completeCalls } = fileTimeline(trace, started);
  const order: (keyof FileSteps)[] = [
    'signAsked',
    'signAnswered',
    'putSent',
    'putAnswered',
    'completeAsked',
    'completeAnswered',
  ];
  const gaps: Record<string, number> = {};
  const when: Record<string, number> = {};
  const last: Record<string, number> = {};
  for (const [index, step] of order.entries()) {
    when[step] = median(files.map((file) => file[step]));
    last[step] = Math.max(...files.map((file) => file[step]));
    const before = order[index - 1];
    if (before) gaps[`${before}->${step}`] = median(files.map((file) => file[step] - file[before]));
  }
  return { files: files.length, signCalls, putCalls, completeCalls, gaps, at: when, last, timers };
}

/** A DevTools profile's nodes, as `Profiler.stop` answers them. */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/**
 * `BENCH_PROFILE=1`: the main thread's time per function (self time, summed over the timed
 * uploads of each side), from DevTools' sampling profiler.
 */
export class SelfTimes {
  readonly #ms: Record<'A' | 'B', Map<string, number>> = { A: new Map(), B: new Map() };

  async start(devtools: CDPSession): Promise<void> {
    await devtools.send('Profiler.enable');
    await devtools.send('Profiler.setSamplingInterval', { interval: 200 });
    await devtools.send('Profiler.start');
  }

  async stop(devtools: CDPSession, side: 'A' | 'B'): Promise<void> {
    const { profile } = await devtools.send('Profiler.stop');
    const nodes = new Map((profile.nodes as ProfileNode[]).map((node) => [node.id, node]));
    const deltas = profile.timeDeltas ?? [];
    const totals = this.#ms[side];
    for (const [index, id] of (profile.samples ?? []).entries()) {
      const frame = nodes.get(id)?.callFrame;
      if (!frame) continue;
      const file = frame.url.split('/').pop() ?? '';
      const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber}`;
      totals.set(name, (totals.get(name) ?? 0) + (deltas[index + 1] ?? 0) / 1000);
    }
  }

  /** The functions taking the most time on either side, with both sides' ms. */
  print(): void {
    const names = new Set([...this.#ms.A.keys(), ...this.#ms.B.keys()]);
    const rows = [...names]
      .map((name) => ({ name, a: this.#ms.A.get(name) ?? 0, b: this.#ms.B.get(name) ?? 0 }))
      .sort((x, y) => Math.max(y.a, y.b) - Math.max(x.a, x.b))
      .slice(0, 40);
    console.log('Self time, ms over all timed uploads: A | B | function');
    for (const { name, a, b } of rows) console.log(`  ${a.toFixed(0)} | ${b.toFixed(0)} | ${name}`);
  }
}
