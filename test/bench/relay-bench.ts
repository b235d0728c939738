/**
 * `npx tsx test/bench/relay-bench.ts`: the relay from the bucket alone, taking turns under
 * wrk against one 1 MiB object on a throwaway Ceph RGW: nginx proxying it (the config of
 * `bench:serving` at scale), our relay (`bucket-connections.ts`) and undici's `Pool`
 * (`relay-server.ts`), each in a process of its own, anonymous GETs all. Prints each relay's
 * CPU per answer and RGW's for it, and the rate: what separates the relays with no lookup,
 * no signing and no framework around them. `BENCH_RUNS` turns (5), `BENCH_SECONDS` (4),
 * `BENCH_SIZES` (1 MiB).
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { patternBytes } from '../helpers/bytes.js';
import { rgwClient, startRgw } from '../helpers/ceph-rgw.js';
import { freePort } from '../helpers/ports.js';
import {
  ensure,
  labelOf,
  type Measured,
  parseSize,
  rgwProxyConfig,
  startNginx,
  withChildren,
  wrk,
} from './serving-support.js';
import { median, startPeer } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SIZE = parseSize(process.env.BENCH_SIZES ?? '1MiB');

const nginxPath = ensure('nginx', 'nginx-light');
const wrkPath = ensure('wrk', 'wrk');
const dir = await mkdtemp(join(tmpdir(), 'filehost-relay-'));
await chmod(dir, 0o755);
const rgw = await startRgw();
if ('skip' in rgw) throw new Error(rgw.skip);
const stops: (() => void)[] = [];
try {
  const bucket = await rgw.createBucket();
  await rgwClient(rgw).send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: 'object',
      Body: patternBytes(SIZE, 1),
      ACL: 'public-read',
    }),
  );
  const objectUrl = `${rgw.endpoint}/${bucket}/object`;
  const nginxPort = await freePort();
  const nginx = await startNginx(
    nginxPath,
    dir,
    rgwProxyConfig(new URL(rgw.endpoint).port, nginxPort),
  );
  stops.push(() => nginx.kill('SIGTERM'));
  const contenders = [
    {
      name: 'nginx',
      url: `http://127.0.0.1:${nginxPort}/${bucket}/object`,
      pids: withChildren(nginx.pid ?? 0),
    },
  ];
  for (const mode of ['ours', 'undici']) {
    const peer = await startPeer('test/bench/relay-server.ts', [mode, objectUrl, `${SIZE}`]);
    stops.push(() => peer.child.kill('SIGTERM'));
    contenders.push({
      name: mode,
      url: `http://127.0.0.1:${peer.port}/`,
      pids: [peer.child.pid ?? 0],
    });
  }
  const results = new Map<string, Measured[]>(contenders.map((c) => [c.name, []]));
  const drive = (c: (typeof contenders)[number], seconds: number) =>
    wrk(wrkPath, c.url, c.pids, { seconds, connections: CONNECTIONS, storePids: rgw.pids() });
  for (const contender of contenders) drive(contender, 1);
  for (let run = 0; run < RUNS; run++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const contender = contenders[(turn + run) % contenders.length] as (typeof contenders)[number];
      results.get(contender.name)?.push(drive(contender, SECONDS));
    }
  }
  console.log(
    `Relaying ${labelOf(SIZE)} from RGW — ${new Date().toISOString()} — wrk 1 thread, ${CONNECTIONS} connections, ${SECONDS} s, ${RUNS} turns (median, lowest-highest)`,
  );
  const nginxRuns = results.get('nginx') as Measured[];
  for (const { name } of contenders) {
    const runs = results.get(name) as Measured[];
    const spread = (values: number[]) =>
      `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
    const ratios = runs.map((r, i) => r.rps / (nginxRuns[i] as Measured).rps);
    console.log(
      `${name.padEnd(8)} ${spread(runs.map((r) => r.rps)).padEnd(18)} / nginx ${median(ratios).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(' ')})  relay CPU µs ${spread(runs.map((r) => r.cpuMicros)).padEnd(18)} RGW µs ${spread(runs.map((r) => r.storeCpuMicros))}`,
    );
  }
} finally {
  for (const stop of stops) stop();
  await rgw.stop();
  await rm(dir, { recursive: true, force: true });
}
