import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackages, unavailable } from './debian-packages.js';
import { freePort } from './ports.js';

const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';

/** Installs Debian's `prometheus` (the server and `promtool`) where it can; null when both are there. */
export function prometheusAvailable(): { skip: string } | null {
  const ready = () => existsSync(PROMETHEUS) && existsSync(PROMTOOL);
  // Without its recommends: the node exporter would start a service of its own.
  if (ensureDebianPackages(['prometheus'], ready, { noRecommends: true })) return null;
  return unavailable('Prometheus', 'apt-get install -y --no-install-recommends prometheus');
}

/**
 * `promtool check metrics` of an exposition: Prometheus' own lint of names, types, help and
 * format. Resolves what it reported ('' when it found nothing wrong) and its exit code.
 */
export function promtoolCheck(exposition: string): Promise<{ code: number; report: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(PROMTOOL, ['check', 'metrics'], (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
      if (error && typeof (error as { code?: unknown }).code !== 'number') reject(error);
      else resolve({ code, report: `${stdout}${stderr}`.trim() });
    });
    child.stdin?.end(exposition);
  });
}

export interface TestPrometheus {
  url: string;
  /** An instant query through the HTTP API: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  /** Resolves once every target has been scraped successfully at least `scrapes` more times. */
  waitForScrapes(scrapes?: number, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real Prometheus server on a free loopback port, its data in a temp dir, scraping each
 * of `targets` (`host:port` of `/metrics`) every second.
 */
export async function startPrometheus(
  targets: string[],
): Promise<TestPrometheus | { skip: string }> {
  const missing = prometheusAvailable();
  if (missing) return missing;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-prometheus-'));
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: filehost',
    '    scrape_timeout: 1s',
    '    static_configs:',
    `      - targets: [${targets.map((target) => `'${target}'`).join(', ')}]`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), config);
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const api = async (path: string): Promise<unknown> => {
    const response = await fetch(`${url}${path}`);
    const body = (await response.json()) as { status: string; data: unknown; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus: ${body.error ?? response.status}`);
    return body.data;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`Prometheus did not start: ${errors}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const scrapeCounts = async () => {
    const data = (await api(
      `/api/v1/query?query=${encodeURIComponent('count_over_time(up[5m])')}`,
    )) as { result: { value: [number, string] }[] };
    const ups = (await api(`/api/v1/query?query=${encodeURIComponent('min(up)')}`)) as {
      result: { value: [number, string] }[];
    };
    const up = Number(ups.result[0]?.value[1] ?? 0);
    const counts = data.result.map((series) => Number(series.value[1]));
    return counts.length === targets.length && up === 1 ? Math.min(...counts) : 0;
  };
  return {
    url,
    async query(promql) {
      const data = (await api(`/api/v1/query?query=${encodeURIComponent(promql)}`)) as {
        result: { metric: Record<string, string>; value: [number, string] }[];
      };
      return data.result.map((series) => ({
        metric: series.metric,
        value: Number(series.value[1]),
      }));
    },
    async waitForScrapes(scrapes = 1, timeoutMs = 30_000) {
      const start = await scrapeCounts();
      const until = Date.now() + timeoutMs;
      while ((await scrapeCounts()) < start + scrapes) {
        if (Date.now() > until) throw new Error(`Prometheus did not scrape ${scrapes} more times`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
