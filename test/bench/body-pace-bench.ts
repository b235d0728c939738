/**
 * `npx tsx test/bench/body-pace-bench.ts`: what watching a body's pace costs an upload.
 * Two plain node:http servers in this process read a request body chunk by chunk to the
 * end, as the upload routes do (`bodyChunks`); one also watches the pace and reads through
 * `untilStalled` (src/server/http/body-pace.ts). The same 64 MiB body is sent to each in
 * turn over loopback; the medians of their MiB/s are printed with their ratio. No disk:
 * only the reading is compared. `ROUNDS` (default 15), `SIZE_MIB` (default 64). Then, what
 * a loaded machine's noise hides in that ratio: the cost per chunk read, in this process
 * (a stream of 20,000 one-byte chunks read plainly and through `untilStalled`, in turns).
 */
import { createServer, type IncomingMessage, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { bodyChunks } from '../../src/server/http/body.js';
import { untilStalled, watchBodyPace } from '../../src/server/http/body-pace.js';

const ROUNDS = Number(process.env.ROUNDS ?? 15);
const SIZE = Number(process.env.SIZE_MIB ?? 64) * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 7);

async function serve(paced: boolean): Promise<{ server: Server; port: number }> {
  const server = createServer(async (req, res) => {
    let bytes = 0;
    const source = bodyChunks(req);
    for await (const chunk of paced ? untilStalled(source, req) : source) bytes += chunk.length;
    res.end(String(bytes));
  });
  if (paced) watchBodyPace(server, { windowMs: 30_000 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** One upload of SIZE bytes; answers MiB/s. */
function upload(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const outgoing = request(
      { host: '127.0.0.1', port, method: 'POST', headers: { 'content-length': SIZE } },
      (answer) => {
        let text = '';
        answer.on('data', (chunk: Buffer) => {
          text += chunk;
        });
        answer.on('end', () => {
          if (Number(text) !== SIZE) reject(new Error(`server read ${text} bytes`));
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          resolve(SIZE / 1024 / 1024 / seconds);
        });
      },
    );
    outgoing.on('error', reject);
    let sent = 0;
    const more = () => {
      while (sent < SIZE) {
        sent += CHUNK.length;
        if (!outgoing.write(CHUNK)) {
          outgoing.once('drain', more);
          return;
        }
      }
      outgoing.end();
    };
    more();
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

const plain = await serve(false);
const paced = await serve(true);
const speeds = { plain: [] as number[], paced: [] as number[] };
await upload(plain.port);
await upload(paced.port);
for (let round = 0; round < ROUNDS; round++) {
  // Taking turns, the order swapped each round: the machine's drift falls on both.
  const order = round % 2 === 0 ? (['plain', 'paced'] as const) : (['paced', 'plain'] as const);
  for (const side of order) {
    speeds[side].push(await upload(side === 'plain' ? plain.port : paced.port));
  }
}
plain.server.close();
paced.server.close();
/**
 * Nanoseconds per chunk to read `CHUNKS` chunks, plainly or paced. The request is a stream
 * standing in for one (what the pace reads of a request: headers, its socket's byte count,
 * `complete`), handed to a server's pace watcher as node:http would hand it.
 */
const CHUNKS = 20_000;
const standIn = createServer();
watchBodyPace(standIn, { windowMs: 30_000 });
async function perChunk(paced: boolean): Promise<number> {
  const one = Buffer.alloc(1);
  const body = Readable.from(
    (function* () {
      for (let index = 0; index < CHUNKS; index++) yield one;
    })(),
  );
  const fake = Object.assign(body, {
    headers: { 'content-length': String(CHUNKS) },
    socket: { bytesRead: 0 },
    complete: false,
  }) as unknown as IncomingMessage;
  standIn.emit('request', fake, { once() {} });
  const started = process.hrtime.bigint();
  const source = fake as unknown as AsyncIterable<Buffer>;
  for await (const _chunk of paced ? untilStalled(source, fake) : source) {
    // Read and dropped.
  }
  return Number(process.hrtime.bigint() - started) / CHUNKS;
}
const costs = { plain: [] as number[], paced: [] as number[] };
for (let round = 0; round < 21; round++) {
  costs.plain.push(await perChunk(false));
  costs.paced.push(await perChunk(true));
}

const result = {
  bench: 'body pace',
  plainNsPerChunk: Math.round(median(costs.plain)),
  pacedNsPerChunk: Math.round(median(costs.paced)),
  sizeMiB: SIZE / 1024 / 1024,
  rounds: ROUNDS,
  plainMiBs: Math.round(median(speeds.plain)),
  pacedMiBs: Math.round(median(speeds.paced)),
  ratio: Number((median(speeds.paced) / median(speeds.plain)).toFixed(3)),
};
console.log(JSON.stringify(result));
process.exit(0);
