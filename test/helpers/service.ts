import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Project } from '../../src/server/db/metadata-store.js';
import type { ServiceConfig } from '../../src/server/ground/config.js';
import { createKey, createProject } from '../../src/server/start/admin.js';
import { configFromEnv } from '../../src/server/start/config-from-env.js';
import { type RunningService, startService } from '../../src/server/start/service.js';
import { checkRawAnswer, watchService } from './openapi-contract.js';
import { reportPending } from './pending.js';
import { type Protocol, protocol } from './protocol.js';
import { scaleDeployment } from './scale.js';
import { SCALE } from './scale-mode.js';

/** The page origin the test project allows. */
export const ALLOWED_ORIGIN = 'http://allowed.test:5173';
export const OTHER_ORIGIN = 'http://evil.test';

export interface TestService extends Protocol {
  service: RunningService;
  apiUrl: string;
  cdnUrl: string;
  secretKey: string;
  publishableKey: string;
  dataDir: string;
  /**
   * What the blob store holds, as paths: objects, and each open multipart upload's folder
   * (`uploads/<id>/…`); the check behind "nothing of it is kept", on either deployment.
   */
  stored(): Promise<string[]>;
  /** fetch against the API with a key (secret by default) and optional Origin. */
  api(path: string, init?: ApiInit): Promise<Response>;
  /** A second project with its own keys, for isolation tests. */
  otherProject(): Promise<{ project: Project; secretKey: string; publishableKey: string }>;
  close(): Promise<void>;
}

export interface ApiInit extends Omit<RequestInit, 'headers'> {
  key?: string | null;
  origin?: string;
  headers?: Record<string, string>;
}

/**
 * A real service on free loopback ports with its own temporary data directory; each test
 * file (or test) builds its own and closes it.
 */
export async function startTestService(
  env: Record<string, string> = {},
  /** Settings no variable reaches (`importTargetForTests`). */
  overrides: Partial<ServiceConfig> = {},
): Promise<TestService> {
  // Said if a wait runs out (`pending.ts`): one report for the service's whole life, saying
  // what it is doing now (`pending`) and the calls it has not answered.
  const startedAt = performance.now();
  let step = 'making its database and bucket';
  let pending = () => [`a test service asked for ${seconds(startedAt)} s ago is ${step}`];
  const unreport = reportPending(() => pending());
  const calls: Calls = new Map();
  const start = async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'filehost-test-'));
    // The bucket lets the same pages PUT parts straight to it as the project allows.
    const origins = (env.FILEHOST_ALLOWED_ORIGINS ?? ALLOWED_ORIGIN).split(',');
    const scale = SCALE ? await scaleDeployment(origins) : null;
    step = 'starting';
    const config: ServiceConfig = {
      ...configFromEnv({
        FILEHOST_DATA_DIR: dataDir,
        FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
        FILEHOST_LOG_LEVEL: process.env.FILEHOST_TEST_LOG_LEVEL ?? 'silent',
        ...scale?.env,
        ...env,
      }),
      apiPort: 0,
      cdnPort: 0,
      ...overrides,
    };
    return { dataDir, scale, config, service: await startService(config) };
  };
  const { dataDir, scale, config, service } = await start().catch((error: unknown) => {
    unreport();
    throw error;
  });
  pending = () => [
    `the test service at ${service.apiUrl} is serving`,
    ...describeService(service, calls),
  ];
  // Every exchange with it is held to the OpenAPI document (see openapi-contract.ts).
  const unwatch = watchService(service.apiUrl, service.cdnUrl);
  const { secretKey, publishableKey } = service.defaultProject;
  let callId = 0;
  const api = (path: string, init: ApiInit = {}) => {
    const { key = secretKey, origin, headers = {}, ...rest } = init;
    const id = ++callId;
    calls.set(id, { what: `${rest.method ?? 'GET'} ${path}`, sentAt: performance.now() });
    const answered = () => calls.delete(id);
    return fetch(`${service.apiUrl}${path}`, {
      ...rest,
      // A streamed body (to test chunked uploads) needs half-duplex in Node's fetch.
      ...(rest.body instanceof ReadableStream ? ({ duplex: 'half' } as RequestInit) : {}),
      headers: {
        ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
        ...(origin ? { Origin: origin } : {}),
        ...headers,
      },
    }).finally(answered);
  };
  return {
    service,
    apiUrl: service.apiUrl,
    cdnUrl: service.cdnUrl,
    secretKey,
    publishableKey,
    dataDir,
    stored: scale ? scale.stored : () => storedFiles(config.dataDir),
    api,
    ...protocol(api),
    async otherProject() {
      const db = service.context.db;
      const project = await createProject(db, {
        name: 'Other',
        plan: 'free',
        allowedOrigins: [ALLOWED_ORIGIN],
      });
      return {
        project,
        secretKey: (await createKey(db, project.id, 'secret')).key,
        publishableKey: (await createKey(db, project.id, 'publishable')).key,
      };
    },
    async close() {
      const closingAt = performance.now();
      pending = () => [
        `the test service at ${service.apiUrl} has been closing for ${seconds(closingAt)} s`,
        ...describeService(service, calls),
      ];
      await service.close();
      unreport();
      await rm(dataDir, { recursive: true, force: true });
      unwatch();
    },
  };
}

/** The test's calls to a service not answered yet, by id. */
type Calls = Map<number, { what: string; sentAt: number }>;

const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(1);

/** What a test service is waiting on: the test's calls it has not answered, its database. */
function describeService(service: RunningService, calls: Calls): string[] {
  const unanswered = new Map<string, { count: number; sentAt: number }>();
  for (const { what, sentAt } of calls.values()) {
    const same = unanswered.get(what);
    if (same) same.count++;
    else unanswered.set(what, { count: 1, sentAt });
  }
  const lines = [...unanswered].map(
    ([what, { count, sentAt }]) =>
      `  ${what}${count > 1 ? ` (×${count})` : ''}: no answer, the first asked ${seconds(sentAt)} s ago`,
  );
  // At scale: the PostgreSQL pool, whose waits are bounded (a checked-out connection never
  // given back holds the service's close).
  const { pool } = service.context.db as {
    pool?: { totalCount: number; idleCount: number; waitingCount: number };
  };
  if (pool) {
    lines.push(
      `  its PostgreSQL pool: ${pool.totalCount} connections, ${pool.idleCount} idle, ${pool.waitingCount} waiting for one`,
    );
  }
  return lines;
}

/** Asserts the status and the whole documented error body (message: any non-empty text). */
export async function expectError(
  response: Response,
  status: number,
  code: string,
  extra: Record<string, unknown> = {},
): Promise<{ code: string; message: string; [key: string]: unknown }> {
  const text = await response.text();
  assert.equal(
    response.status,
    status,
    `expected ${status} ${code}, got ${response.status}: ${text}`,
  );
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  const body = JSON.parse(text) as { error: { code: string; message: string } };
  assert.equal(body.error.code, code, text);
  assert.equal(typeof body.error.message, 'string');
  assert.ok(body.error.message.length > 0);
  for (const [key, value] of Object.entries(extra)) {
    assert.deepEqual((body.error as Record<string, unknown>)[key], value, `error.${key}`);
  }
  return body.error;
}

export async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  return JSON.parse(text) as T;
}

export { patternBytes } from './bytes.js';

export interface ChildService {
  apiUrl: string;
  cdnUrl: string;
  secretKey: string;
  publishableKey: string;
  process: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  output(): string;
}

/**
 * The service as its own process (`src/server/start/main.ts`, as `npm run server` runs it), for
 * tests that kill it for real and start it again on the same data directory.
 */
export async function spawnService(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  /** `startMs`: how long it may take to print its banner (30 s; longer under valgrind). */
  options: { cwd?: string; wrapper?: string[]; startMs?: number } = {},
): Promise<ChildService> {
  const { startMs = 30_000, ...rest } = options;
  const { child, output: read, exited } = startServiceProcess(env, { nodeArgs, ...rest });
  const output = () => read();
  const deadline = Date.now() + startMs;
  while (!/Secret key\s+\S+/.test(output())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`The service did not start:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pick = (label: string) => {
    const match = new RegExp(`${label}\\s+(\\S+)`).exec(output());
    if (!match?.[1]) throw new Error(`No ${label} in:\n${output()}`);
    return match[1];
  };
  return {
    apiUrl: pick('API'),
    cdnUrl: pick('CDN'),
    secretKey: pick('Secret key'),
    publishableKey: pick('Publishable key'),
    process: child,
    exited,
    output,
  };
}

/**
 * The service's command-line entry in a checkout (this one by default): where start-up
 * lives, or, in a revision from before it moved into `start/`, where it was.
 */
export function serviceEntry(cwd = '.'): string {
  const entry = 'src/server/start/main.ts';
  return existsSync(join(cwd, entry)) ? entry : 'src/server/main.ts';
}

/**
 * The embedded service started as `npm run server` starts it (tsx, free ports, warnings
 * only, a fresh data dir), in `cwd`, with `nodeArgs` before its entry; stopped and its data
 * dir removed once its banner (the secret key) is out. Answers how long that took and what
 * it wrote to stderr.
 */
export async function startedToBanner(
  cwd = '.',
  nodeArgs: readonly string[] = [],
): Promise<{ ms: number; stderr: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'filehost-startup-'));
  const began = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, serviceEntry(cwd)], {
    cwd,
    env: {
      ...process.env,
      FILEHOST_API_PORT: '0',
      FILEHOST_CDN_PORT: '0',
      FILEHOST_LOG_LEVEL: 'warn',
      FILEHOST_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  try {
    const ms = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk;
        if (/Secret key\s+\S+/.test(stdout)) resolve(performance.now() - began);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk;
      });
      child.once('exit', (code) =>
        reject(new Error(`exited (${code}) before ready:\n${stdout}${stderr}`)),
      );
    });
    return { ms, stderr };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * `src/server/start/main.ts` as a process of its own (free ports, warnings only), its output
 * (stdout and stderr together) collected as it comes.
 */
export function startServiceProcess(
  env: Record<string, string>,
  /**
   * `cwd`: a checkout of another revision (a bench's baseline); this one by default.
   * `wrapper`: a program and its arguments that run node (`valgrind --tool=callgrind`).
   */
  options: {
    nodeArgs?: string[];
    uid?: number;
    gid?: number;
    cwd?: string;
    wrapper?: string[];
  } = {},
): {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
} {
  const { nodeArgs = [], wrapper = [], ...identity } = options;
  const entry = serviceEntry(identity.cwd);
  const [command = process.execPath, ...wrapped] = [...wrapper, process.execPath];
  const child = spawn(command, [...wrapped, ...nodeArgs, '--import', 'tsx', entry], {
    env: {
      ...process.env,
      FILEHOST_API_PORT: '0',
      FILEHOST_CDN_PORT: '0',
      FILEHOST_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...identity,
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => output, exited };
}

/** Every file under the local blob store's folders, relative to them. */
export async function storedFiles(dataDir: string): Promise<string[]> {
  const root = join(dataDir, 'storage');
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)))
    .sort();
}

/** Compares a downloaded body with the bytes that were sent, without printing megabytes. */
export function assertSameBytes(actual: ArrayBuffer, expected: Uint8Array): void {
  assert.equal(actual.byteLength, expected.length, 'byte count');
  assert.ok(Buffer.from(actual).equals(expected), 'bytes differ');
}

/**
 * A request through `node:http`, for what fetch will not send: a lying Content-Length, a
 * header given as an array (sent once per value), a path exactly as written (fetch and
 * `URL` resolve `/a/..`).
 */
export function rawHttp(
  baseUrl: string,
  options: {
    method: string;
    path: string;
    headers: Record<string, string | string[]>;
    body?: Buffer;
    end?: boolean;
  },
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const { method, path, headers } = options;
  return new Promise((resolve, reject) => {
    const req = httpRequest(baseUrl, { method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => {
        req.destroy();
        const answer = { status: res.statusCode ?? 0, headers: res.headers, body };
        try {
          checkRawAnswer(baseUrl, { method, path }, answer);
        } catch (error) {
          reject(error);
          return;
        }
        resolve(answer);
      });
    });
    req.on('error', reject);
    if (options.body) req.write(options.body);
    if (options.end !== false) req.end();
  });
}

/**
 * A part PUT that the store took: `200` and its ETag in the `ETag` header, which is all S3
 * answers; the local store also answers `{ partNumber, size, etag }` in JSON, checked too.
 */
export async function partAccepted(
  response: Response,
  part: { partNumber: number; size: number },
): Promise<string> {
  const text = await response.text();
  assert.equal(response.status, 200, text);
  const etag = response.headers.get('etag') ?? '';
  assert.match(etag, /^".+"$/, 'a quoted ETag header');
  if (!SCALE)
    assert.deepEqual(JSON.parse(text), { partNumber: part.partNumber, size: part.size, etag });
  return etag;
}

/**
 * A part PUT that the store refused. The local store answers the documented JSON error;
 * S3 answers in its own words (XML), so there the status alone is what a client can rely on.
 */
export async function expectPartRefused(
  response: Response,
  status: { local: number; s3: number },
  code: string,
  extra: Record<string, unknown> = {},
): Promise<void> {
  if (!SCALE) {
    await expectError(response, status.local, code, extra);
    return;
  }
  const text = await response.text();
  assert.equal(response.status, status.s3, text);
}
