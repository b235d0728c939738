import { createServer } from 'node:http';
import { Pool } from 'undici';
import { BucketConnections, DECLINED } from '../../src/server/storage/s3/bucket-connections.js';

/**
 * One way of relaying a bucket's object to a client, for `relay-bench.ts`: every `GET /`
 * answered with the object at `<bucket URL>` (anonymous, readable by anyone), its bytes
 * relayed by `ours` (`bucket-connections.ts`, what the CDN uses) or `undici` (its `Pool`,
 * kept-alive connections, a dispatch handler with backpressure). No lookup, no signing:
 * the relay alone. undici is the copy npm installed for other packages (not a dependency
 * of filehost's own: only this bench imports it). Usage: `relay-server.ts ours|undici <object URL> <length>`; prints
 * `PORT <n>` once it listens.
 */
const [mode = 'ours', objectUrl = '', lengthText = '0'] = process.argv.slice(2);
const url = new URL(objectUrl);
const length = Number(lengthText);
const CONNECTIONS = 128;
const head = `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\n\r\n`;
const answerHeaders = { 'content-type': 'application/octet-stream', 'content-length': `${length}` };

const ours = new BucketConnections({
  host: url.hostname,
  port: Number(url.port),
  maxSockets: CONNECTIONS,
  chunkBytes: 256 * 1024,
  idleMs: 10_000,
});
const pool = new Pool(url.origin, { connections: CONNECTIONS, pipelining: 1 });

const server = createServer((_request, response) => {
  if (mode === 'ours') {
    void ours
      .open(head, (answer) => answer.status === 200 && answer.length === length)
      .then((opened) => {
        if (opened === DECLINED) throw new Error('declined');
        response.writeHead(200, answerHeaders);
        return opened.sendTo(response);
      })
      .catch(() => response.destroy());
    return;
  }
  let resume: (() => void) | null = null;
  response.on('drain', () => resume?.());
  pool.dispatch(
    { method: 'GET', path: url.pathname },
    {
      onConnect() {},
      onHeaders(status: number, _headers: unknown, resumeReading: () => void) {
        if (status !== 200) throw new Error(`status ${status}`);
        resume = resumeReading;
        response.writeHead(200, answerHeaders);
        return true;
      },
      onData(chunk: Buffer) {
        return response.write(chunk);
      },
      onComplete() {
        response.end();
      },
      onError() {
        response.destroy();
      },
    },
  );
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`PORT ${typeof address === 'object' && address ? address.port : 0}`);
});
