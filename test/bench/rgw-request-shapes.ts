/**
 * `npx tsx test/bench/rgw-request-shapes.ts`: what RGW spends per GET of one object for each
 * way of asking it, driven by wrk straight at the gateway (no relay between): anonymous (as
 * nginx asks in `bench:serving`), with and without `Range`, SigV4 in the headers (as the
 * instance asks), and a presigned URL. Signed requests are signed once and replayed: RGW
 * accepts a signature for 15 minutes and does not remember it, so each request costs the
 * gateway a full check. Prints RGW's CPU time per request (its daemons, from /proc) and the
 * rate, for each size in `BENCH_SIZES` (default 1 KiB and 1 MiB), `BENCH_RUNS` turns each.
 */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../src/server/storage/s3/range-reader.js';
import { patternBytes } from '../helpers/bytes.js';
import { rgwClient, startRgw } from '../helpers/ceph-rgw.js';
import { ensure, labelOf, parseSize, wrk } from './serving-support.js';
import { median } from './support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SIZES = (process.env.BENCH_SIZES ?? '1024,1048576').split(',').map(parseSize);

interface Shape {
  name: string;
  url: string;
  headers: Record<string, string>;
}

async function main(): Promise<void> {
  const wrkPath = ensure('wrk', 'wrk');
  const rgw = await startRgw();
  if ('skip' in rgw) throw new Error(rgw.skip);
  try {
    const s3 = rgwClient(rgw);
    const bucket = await rgw.createBucket();
    const signer = new SignatureV4({
      service: 's3',
      region: rgw.region,
      credentials: { accessKeyId: rgw.accessKeyId, secretAccessKey: rgw.secretAccessKey },
      sha256: NodeSha256,
      uriEscapePath: false,
      applyChecksum: false,
    });
    const endpoint = new URL(rgw.endpoint);
    console.log(
      `RGW per GET, by request shape — ${new Date().toISOString()} — wrk 1 thread, ${CONNECTIONS} connections, ${SECONDS} s, ${RUNS} turns`,
    );
    console.log(
      'size     shape                               requests/s   RGW CPU µs/request (median, lowest-highest)',
    );
    for (const [index, size] of SIZES.entries()) {
      const key = `shape-${index}`;
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: key,
          Body: patternBytes(size, index + 1),
          ACL: 'public-read',
        }),
      );
      const path = `/${bucket}/${key}`;
      const url = `${rgw.endpoint}${path}`;
      const range = `bytes=0-${size - 1}`;
      const signed = async (headers: Record<string, string>) =>
        (
          await signer.sign({
            method: 'GET',
            protocol: 'http:',
            hostname: endpoint.hostname,
            port: Number(endpoint.port),
            path,
            query: {},
            headers: { host: endpoint.host, ...headers },
          })
        ).headers;
      const unsigned = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' };
      const shapes: Shape[] = [
        { name: 'anonymous', url, headers: {} },
        { name: 'anonymous, Range', url, headers: { range } },
        {
          name: 'SigV4 headers, Range (the instance)',
          url,
          headers: await signed({ range, ...unsigned }),
        },
        { name: 'SigV4 headers', url, headers: await signed(unsigned) },
        {
          name: 'presigned URL',
          url: await getSignedUrl(s3, new GetObjectCommand({ Bucket: bucket, Key: key }), {
            expiresIn: 900,
          }),
          headers: {},
        },
      ];
      const results = new Map<string, { rps: number[]; cpu: number[] }>();
      for (let run = 0; run < RUNS; run++) {
        // The order rotates, so a machine slowing down mid-run weighs on every shape alike.
        for (let turn = 0; turn < shapes.length; turn++) {
          const shape = shapes[(turn + run) % shapes.length] as Shape;
          const measured = wrk(wrkPath, shape.url, [], {
            seconds: SECONDS,
            connections: CONNECTIONS,
            storePids: rgw.pids(),
            headers: Object.entries(shape.headers).filter(([name]) => name !== 'host'),
          });
          const entry = results.get(shape.name) ?? { rps: [], cpu: [] };
          entry.rps.push(measured.rps);
          entry.cpu.push(measured.storeCpuMicros);
          results.set(shape.name, entry);
        }
      }
      for (const shape of shapes) {
        const { rps, cpu } = results.get(shape.name) ?? { rps: [], cpu: [] };
        console.log(
          `${labelOf(size).padEnd(8)} ${shape.name.padEnd(36)} ${median(rps).toFixed(0).padStart(10)}   ${median(cpu).toFixed(0)} (${Math.min(...cpu).toFixed(0)}-${Math.max(...cpu).toFixed(0)})`,
        );
      }
    }
  } finally {
    await rgw.stop();
  }
}

await main();
