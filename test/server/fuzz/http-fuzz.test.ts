import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { API_ERROR_STATUS } from '../../../src/api/errors.js';
import type { FileListResponse } from '../../../src/api/types.js';
import { json, startTestService, type TestService } from '../../helpers/service.js';

/**
 * Generated malformed HTTP at the running service over raw sockets. Every case must get,
 * within 10 s, an answer in the documented shape (or, where the request never finished, a
 * closed connection), never a 5xx; and after all of them nothing is stored and the service
 * still answers. Seeded: `FUZZ_SEED` and `FUZZ_CASES` replay or widen a run, and a failure
 * prints the case's index and bytes.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const CASES = Number(process.env.FUZZ_CASES ?? 3000);
const PARALLEL = 24;
/** `FUZZ_ONLY=chunked,slow-body` runs the cases of those classes only (the seed's others are skipped). */
const ONLY = process.env.FUZZ_ONLY?.split(',');
const ANSWER_WITHIN_MS = 10_000;

type CaseClass =
  | 'request-line'
  | 'headers'
  | 'content-length'
  | 'chunked'
  | 'body-longer'
  | 'body-shorter-closed'
  | 'body-shorter-held'
  | 'slow-body'
  | 'routes';

interface FuzzCase {
  kind: CaseClass;
  target: 'api' | 'cdn';
  /** Written in order, with `pauseMs` between them. */
  pieces: Buffer[];
  pauseMs: number;
  /** Half-close after the last piece (true) or keep the socket open. */
  endAfter: boolean;
  /** Whether the request is whole (or broken in its framing): then an answer is owed. */
  answerOwed: boolean;
  /** HEAD answers carry no body. */
  head: boolean;
}

// ---------------------------------------------------------------------------------------
// Generators

/** The key is filled in when the service is up; cases refer to it by this placeholder. */
const SECRET = '{{secret}}';

const token = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,12}$/);
const anyBytes = (max: number) =>
  fc.uint8Array({ maxLength: max }).map((a) => Buffer.from(a).toString('latin1'));
const method = fc.oneof(
  fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT'),
  fc.constantFrom('get', 'G ET', '', 'POST ', 'PROPFIND', 'M-SEARCH', 'PRI'),
  token,
);
const idLike = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{1,30}$/),
  fc.constantFrom('', '.', '..', '%2e%2e', '%00', '%', '%zz', '%C0%AF', 'a'.repeat(600)),
  anyBytes(20).map((s) => encodeURIComponent(s)),
);
const path = fc.oneof(
  fc.constantFrom(
    '/v1/upload',
    '/v1/files',
    '/v1/uploads/sign',
    '/v1/uploads/complete',
    '/v1/parts',
    '*',
    '/',
    '//v1//files',
    '/v1/files/../files',
    'http://evil.test/v1/files',
  ),
  idLike.map((id) => `/v1/files/${id}`),
  idLike.map((id) => `/v1/uploads/${id}`),
  idLike.map((id) => `/v1/uploads/${id}/complete`),
  fc.tuple(idLike, fc.nat(20_000)).map(([id, n]) => `/v1/uploads/${id}/parts/${n}`),
  fc.tuple(idLike, idLike).map(([id, name]) => `/${id}/${name}`),
  idLike.map((id) => `/${id}`),
);
const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?limit=0',
    '?limit=abc',
    '?limit=101',
    '?limit=1&limit=2',
    '?cursor=',
    '?cursor=1_a',
    '?cursor=99999999999999999_a',
    '?cursor=%FF',
    '?expires=1&signature=x',
    '?%',
    '?a[b]=c',
    '?__proto__=1',
  ),
  anyBytes(40).map((s) => `?${encodeURIComponent(s)}=${encodeURIComponent(s)}`),
);
const target = fc.tuple(path, query).map(([p, q]) => p + q);

const version = fc.oneof(
  fc.constant('HTTP/1.1'),
  fc.constantFrom(
    'HTTP/1.0',
    'HTTP/2.0',
    'HTTP/9.9',
    'http/1.1',
    'HTTP/1.1 ',
    'HTTP/',
    'HTTPS/1.1',
    '',
  ),
);

const auth = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    'Authorization: Bearer\r\n',
    'Authorization: Bearer sk_test_nope\r\n',
    'Authorization: Basic YTpi\r\n',
    'Authorization: bearer pk_x\r\n',
    `Authorization: Bearer ${'k'.repeat(5000)}\r\n`,
  ),
);

const headerLine = fc.oneof(
  fc.tuple(token, anyBytes(30)).map(([n, v]) => `${n}: ${v.replace(/[\r\n]/g, '')}\r\n`),
  fc.constantFrom(
    'Bad Header\r\n',
    ': empty-name\r\n',
    'X-Folded: a\r\n  b\r\n',
    'Content-Type: multipart/form-data\r\n',
    'Content-Type: multipart/form-data; boundary=\r\n',
    'Content-Type: text/html\r\nContent-Type: image/png\r\n',
    'Authorization: Bearer a\r\nAuthorization: Bearer b\r\n',
    'Range: bytes=0-1\r\nRange: bytes=2-3\r\n',
    'Range: bytes=-0\r\n',
    'Range: bytes=1-0,0-1\r\n',
    'Range: items=0-1\r\n',
    'If-None-Match: *\r\n',
    'X-Filename: %E2%82\r\n',
    'X-Filename: ../../etc/passwd\r\n',
    'X-Metadata: {"a":1}\r\n',
    'X-Metadata: [\r\n',
    'Origin: null\r\n',
    'Expect: 100-continue\r\n',
    'Expect: something-else\r\n',
    'Connection: upgrade\r\nUpgrade: websocket\r\n',
    'Host: a\r\nHost: b\r\n',
    'X-Forwarded-For: 1.2.3.4, garbage\r\n',
    `X-Long: ${'v'.repeat(20_000)}\r\n`,
    'X-Ctl: a\u0001b\r\n',
    'X-Null: a\u0000b\r\n',
    'X-Bare-LF: a\nX-Other: b\r\n',
    'X-Filehost-Upload: x\r\nX-Filehost-Part: 01\r\nX-Filehost-Expires: 1\r\nX-Filehost-Signature: x\r\n',
    'X-Filehost-Part: 1\r\nX-Filehost-Part: 2\r\n',
  ),
);
const contentLength = fc.constantFrom(
  'Content-Length: -1\r\n',
  'Content-Length: 0x10\r\n',
  'Content-Length: 1e3\r\n',
  'Content-Length: 99999999999999999999999\r\n',
  'Content-Length: 5\r\nContent-Length: 6\r\n',
  'Content-Length: 5, 5\r\n',
  'Content-Length:  5 \r\n',
  'Content-Length: +5\r\n',
  'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n',
  'Transfer-Encoding: gzip\r\n',
  'Transfer-Encoding: chunked, chunked\r\n',
  'Transfer-Encoding: identity\r\n',
  'Transfer-Encoding: CHUNKED\r\n',
  'Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n',
);

/** Requests whose bytes, if they were whole, would be accepted: what breaking them may not keep. */
const storingRequest = fc.constantFrom(
  { line: 'POST /v1/upload HTTP/1.1', headers: 'X-Filename: case-{{case}}.bin\r\n' },
  {
    line: 'POST /v1/upload HTTP/1.1',
    headers: 'Content-Type: text/plain\r\nX-Filename: case-{{case}}.txt\r\n',
  },
  {
    line: 'POST /v1/uploads/sign HTTP/1.1',
    headers: 'Content-Type: application/json\r\n',
  },
);
const bodyText = fc.oneof(
  anyBytes(200),
  fc.constant('{"name":"a.txt","size":10}'),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? ''),
);

const head = (line: string, headers: string) => `${line}\r\nHost: fuzz.test\r\n${headers}\r\n`;

function caseOf(kind: CaseClass, pieces: string[], extra: Partial<FuzzCase> = {}): FuzzCase {
  const first = pieces[0] ?? '';
  return {
    kind,
    target: 'api',
    pieces: pieces.map((piece) => Buffer.from(piece, 'latin1')),
    pauseMs: 0,
    endAfter: false,
    answerOwed: true,
    head: /^HEAD /.test(first),
    ...extra,
  };
}

const server = fc.constantFrom('api' as const, 'cdn' as const);

const requestLineCase = fc
  .tuple(
    method,
    anyBytes(3),
    target,
    fc.oneof(fc.constant(' '), fc.constantFrom('  ', '\t', '')),
    version,
    server,
  )
  .map(([m, junk, t, space, v, where]) =>
    caseOf('request-line', [head(`${m}${junk.length < 2 ? '' : junk}${space}${t} ${v}`, '')], {
      target: where,
    }),
  );

const headersCase = fc
  .tuple(
    fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE'),
    target,
    fc.array(headerLine, { minLength: 1, maxLength: 4 }),
    auth,
    server,
  )
  .map(([m, t, lines, a, where]) =>
    caseOf('headers', [head(`${m} ${t} HTTP/1.1`, `${a}${lines.join('')}Content-Length: 0\r\n`)], {
      target: where,
    }),
  );

const contentLengthCase = fc
  .tuple(storingRequest, contentLength, bodyText, server)
  .map(([r, cl, body, where]) =>
    caseOf(
      'content-length',
      [head(r.line, `Authorization: Bearer ${SECRET}\r\n${r.headers}${cl}`) + body],
      // Held open, not half-closed: some of these headers are valid (` 5 `), making a whole
      // upload of the body's first bytes, whose 201 must be read (Node drops a half-closed
      // connection before an answer still being made). A body too short is cut by the idle
      // timeout.
      { target: where, answerOwed: false },
    ),
  );

/** A chunked body broken before its last chunk: nothing of it may be kept. */
const brokenChunk = fc.constantFrom(
  'zz\r\nabc\r\n',
  '5\r\nabc\r\n',
  '3\r\nabcdef\r\n',
  '-1\r\n',
  'ffffffffffffffffff\r\nabc',
  '3;ext="unterminated\r\nabc\r\n',
  '3\nabc\n',
  '3\r\nabc',
  '\r\n\r\n',
  '0x3\r\nabc\r\n',
);
const chunkedCase = fc
  .tuple(
    storingRequest,
    fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
    brokenChunk,
    fc.boolean(),
  )
  .map(([r, good, bad, hold]) => {
    const chunks = good
      .map((text) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`)
      .join('');
    return caseOf(
      'chunked',
      [
        head(
          r.line,
          `Authorization: Bearer ${SECRET}\r\n${r.headers}Transfer-Encoding: chunked\r\n`,
        ) +
          chunks +
          bad,
      ],
      // A chunk that promises more bytes than come is only known to be broken when the
      // connection ends or the idle timeout cuts it.
      { endAfter: !hold, answerOwed: false },
    );
  });

/** More bytes than Content-Length: the rest is a second request (garbage). No key: the first may be whole. */
const longerCase = fc
  .tuple(
    fc.constantFrom(
      'POST /v1/upload HTTP/1.1',
      'POST /v1/uploads/sign HTTP/1.1',
      'PUT /v1/uploads/x/parts/1 HTTP/1.1',
    ),
    fc.nat(50),
    bodyText,
    anyBytes(100),
    server,
  )
  .map(([line, n, body, more, where]) =>
    caseOf(
      'body-longer',
      [head(line, `Content-Length: ${Math.min(n, body.length)}\r\n`) + body + more],
      // Kept open: Node ends a half-closed connection at once, before an answer that is
      // still being made could be written (a whole request's, here).
      { target: where },
    ),
  );

const shorterCase = (held: boolean) =>
  fc
    .tuple(storingRequest, fc.integer({ min: 1, max: 100_000 }), bodyText)
    .map(([r, extra, body]) =>
      caseOf(
        held ? 'body-shorter-held' : 'body-shorter-closed',
        [
          head(
            r.line,
            `Authorization: Bearer ${SECRET}\r\n${r.headers}Content-Length: ${Buffer.byteLength(body, 'latin1') + extra}\r\n`,
          ) + body,
        ],
        { endAfter: !held, answerOwed: false },
      ),
    );

/**
 * Bytes that trickle in, with pauses around the idle timeout (1 s). Whole bodies go to the
 * sign call and are not JSON (refused once read); the others never finish (cut).
 */
const slowCase = fc
  .tuple(
    storingRequest,
    fc.integer({ min: 2, max: 6 }),
    fc.constantFrom(100, 400, 1200),
    fc.boolean(),
  )
  .map(([r, count, pause, finish]) => {
    const size = count * 10;
    const request = finish
      ? { line: 'POST /v1/uploads/sign HTTP/1.1', headers: 'Content-Type: application/json\r\n' }
      : r;
    return caseOf(
      'slow-body',
      [
        head(
          request.line,
          `Authorization: Bearer ${SECRET}\r\n${request.headers}Content-Length: ${finish ? size : size + 1}\r\n`,
        ),
        ...Array.from({ length: count }, (_, i) =>
          i === 0 ? `{${'x'.repeat(9)}` : 'x'.repeat(10),
        ),
      ],
      { pauseMs: pause, answerOwed: false },
    );
  });

/** Well-formed HTTP at every route with hostile paths, queries, keys and bodies; never the real key on a write. */
const routesCase = fc
  .tuple(
    fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'),
    target,
    fc.oneof(auth, fc.constant(`Authorization: Bearer ${SECRET}\r\n`)),
    fc.array(
      headerLine.filter(
        (line) =>
          !/Expect|Upgrade|Content-Length|X-Long|Bare-LF|Host: a|X-Null|X-Ctl|Bad Header|: empty|Folded/.test(
            line,
          ),
      ),
      { maxLength: 3 },
    ),
    bodyText,
    server,
  )
  .map(([m, t, a, lines, body, where]) => {
    const writes = m === 'POST' || m === 'PUT' || m === 'PATCH';
    const key = writes && a.includes(SECRET) ? '' : a;
    const sent = m === 'GET' || m === 'HEAD' ? '' : body;
    return caseOf(
      'routes',
      [
        head(
          `${m} ${t} HTTP/1.1`,
          `${key}${lines.join('')}Content-Length: ${Buffer.byteLength(sent, 'latin1')}\r\n`,
        ) + sent,
      ],
      { target: where },
    );
  });

const anyCase = fc.oneof(
  { arbitrary: requestLineCase, weight: 3 },
  { arbitrary: headersCase, weight: 3 },
  { arbitrary: contentLengthCase, weight: 2 },
  { arbitrary: chunkedCase, weight: 2 },
  { arbitrary: longerCase, weight: 2 },
  { arbitrary: shorterCase(false), weight: 2 },
  { arbitrary: shorterCase(true), weight: 1 },
  { arbitrary: slowCase, weight: 1 },
  { arbitrary: routesCase, weight: 6 },
);

// ---------------------------------------------------------------------------------------
// Running a case

interface Outcome {
  status: number | null;
  body: Buffer;
  headers: Record<string, string>;
  closed: boolean;
}

/** Reads the first HTTP response on the socket; null until it is whole. */
function parseResponse(data: Buffer, head: boolean): Omit<Outcome, 'closed'> | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3}) /.exec(lines[0] ?? '');
  if (!status) throw new Error(`not an HTTP response: ${JSON.stringify(lines[0])}`);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const code = Number(status[1]);
  if (code === 100) return parseResponse(data.subarray(end + 4), head);
  const rest = data.subarray(end + 4);
  if (head || code === 204 || code === 304) return { status: code, headers, body: Buffer.alloc(0) };
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = Number.parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) return { status: code, headers, body: Buffer.concat(parts) };
      if (rest.length < lineEnd + 2 + size + 2) return null;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = Number(headers['content-length'] ?? 0);
  if (rest.length < length) return null;
  return { status: code, headers, body: rest.subarray(0, length) };
}

async function run(fuzz: FuzzCase, url: string): Promise<Outcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let data = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => {
      finish(new Error(`no answer and no close within ${ANSWER_WITHIN_MS} ms`));
    }, ANSWER_WITHIN_MS);
    const finish = (result: Outcome | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      try {
        const response = parseResponse(data, fuzz.head);
        if (response) finish({ ...response, closed: false });
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      try {
        const response = data.length > 0 ? parseResponse(data, fuzz.head) : null;
        if (data.length > 0 && !response) {
          finish(
            new Error(
              `an answer cut short: ${JSON.stringify(data.toString('latin1').slice(0, 200))}`,
            ),
          );
        }
        finish({
          status: response?.status ?? null,
          headers: response?.headers ?? {},
          body: response?.body ?? Buffer.alloc(0),
          closed: true,
        });
      } catch (error) {
        finish(error as Error);
      }
    });
    socket.on('connect', async () => {
      for (const [index, piece] of fuzz.pieces.entries()) {
        if (index > 0 && fuzz.pauseMs > 0) await new Promise((r) => setTimeout(r, fuzz.pauseMs));
        if (settled || socket.destroyed) return;
        socket.write(piece);
      }
      if (fuzz.endAfter && !socket.destroyed) socket.end();
    });
  });
}

/** The contract, for one case: a documented answer (or a close where none is owed), no 5xx. */
function check(fuzz: FuzzCase, outcome: Outcome): void {
  if (outcome.status === null) {
    assert.ok(!fuzz.answerOwed, 'the connection closed without an answer to a whole request');
    return;
  }
  assert.ok(
    outcome.status < 500,
    `answered ${outcome.status}: ${outcome.body.toString('utf8').slice(0, 300)}`,
  );
  if (outcome.status < 400 || fuzz.head) return;
  assert.match(outcome.headers['content-type'] ?? '', /^application\/json/, 'a JSON error');
  const body = JSON.parse(outcome.body.toString('utf8')) as {
    error?: { code?: string; message?: string };
  };
  const code = body.error?.code as keyof typeof API_ERROR_STATUS;
  assert.ok(code && Object.hasOwn(API_ERROR_STATUS, code), `a documented code: ${outcome.body}`);
  assert.equal(API_ERROR_STATUS[code], outcome.status, `${code} has the status of the table`);
  assert.equal(typeof body.error?.message, 'string');
  assert.deepEqual(Object.keys(body), ['error'], 'nothing but error');
}

describe('HTTP fuzz: generated malformed requests at the running service', {
  timeout: 600_000,
}, () => {
  let t: TestService;
  let tempFilesLeft: string[] | null = null;
  before(async () => {
    t = await startTestService({ FILEHOST_IDLE_TIMEOUT: '1', FILEHOST_RATE_LIMIT: '100000' });
  });
  after(() => t.close());

  it(`answers ${CASES} cases (seed ${SEED}) in the documented shape, never 5xx, keeping nothing`, async () => {
    const cases = fc
      .sample(anyCase, { seed: SEED, numRuns: CASES })
      .filter((fuzz) => !ONLY || ONLY.includes(fuzz.kind));
    const counts = new Map<string, { cases: number; answered: number; closed: number }>();
    const statuses = new Map<number, number>();
    const created: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length) {
        const index = next++;
        const fuzz = cases[index] as FuzzCase;
        const pieces = fuzz.pieces.map((piece) =>
          Buffer.from(
            piece
              .toString('latin1')
              .replaceAll(SECRET, t.secretKey)
              .replaceAll('{{case}}', String(index)),
            'latin1',
          ),
        );
        const sent = { ...fuzz, pieces };
        const where = fuzz.target === 'api' ? t.apiUrl : t.cdnUrl;
        const described = () =>
          `case ${index} (seed ${SEED}, ${fuzz.kind} at the ${fuzz.target}): ${JSON.stringify(Buffer.concat(pieces).toString('latin1').slice(0, 400))}`;
        let outcome: Outcome;
        try {
          outcome = await run(sent, where);
          check(sent, outcome);
        } catch (error) {
          throw new Error(`${described()}\n${(error as Error).message}`);
        }
        // A request can be whole and valid before what breaks the connection (bytes past its
        // Content-Length): then it was stored, and its answer must say so, first.
        if (outcome.status === 201) {
          created.push((JSON.parse(outcome.body.toString('utf8')) as { id: string }).id);
        }
        const count = counts.get(fuzz.kind) ?? { cases: 0, answered: 0, closed: 0 };
        count.cases++;
        if (outcome.status === null) count.closed++;
        else count.answered++;
        counts.set(fuzz.kind, count);
        if (outcome.status !== null)
          statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));

    const table = [...counts]
      .sort()
      .map(([kind, c]) => `${kind}: ${c.cases} (${c.answered} answered, ${c.closed} closed)`);
    console.log(
      `HTTP fuzz, seed ${SEED} (${created.length} whole requests before a break, stored and answered 201):\n  ${table.join('\n  ')}\n  statuses: ${JSON.stringify(Object.fromEntries(statuses))}`,
    );

    // Nothing of any of it was kept but what was answered 201, and the service still works.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const id of created) {
      assert.equal((await t.api(`/v1/files/${id}`, { method: 'DELETE' })).status, 204);
    }
    // A request cut by the idle timeout is cleaned up once its connection is gone; give the
    // last of them a moment, then nothing may remain (a temp file left for good is a leak).
    const deadline = Date.now() + 10_000;
    let left = await t.stored();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      left = await t.stored();
    }
    console.log(
      `stored after the run: ${left.length} (waited ${10_000 - (deadline - Date.now())} ms)`,
    );
    if (left.length > 0) {
      // Which cases: their uploads are still receiving (named after the case).
      const stuck = await t.service.context.db.listReceiving(100);
      console.log(`still receiving: ${stuck.map((row) => row.name).join(', ')}`);
    }
    // Nothing stored and no upload left open. Temp files are checked on their own below.
    assert.deepEqual(
      left.filter((path) => !path.startsWith('tmp/')),
      [],
    );
    tempFilesLeft = left.filter((path) => path.startsWith('tmp/'));
    const list = await json<FileListResponse>(await t.api('/v1/files'));
    assert.deepEqual(list.files, []);
    const upload = await t.api('/v1/upload', {
      method: 'POST',
      headers: { 'X-Filename': 'after.txt' },
      body: 'still here',
    });
    assert.equal(upload.status, 201);
  });

  // Found on CI (2 to 5 temp files in two runs of five): `pipeline` settles on a failure
  // before the file stream has closed, so a file still being opened was created after the
  // upload removed it (write-file.ts; test/server/storage/write-file.test.ts).
  it('leaves no temp file of a cut upload behind', () => {
    assert.ok(tempFilesLeft, 'the fuzz run above finished');
    assert.deepEqual(tempFilesLeft, []);
  });
});
