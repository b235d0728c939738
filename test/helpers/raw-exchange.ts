import { connect } from 'node:net';
import { checkRawAnswer } from './openapi-contract.js';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written to a raw socket as a simple client does it: the head and the whole
 * body first, and only then the answer, read until its Content-Length is in. Bytes that
 * arrive meanwhile wait in the kernel's buffer, where a reset discards them: a server that
 * closes while the body is still coming makes this client see the socket's error (EPIPE,
 * ECONNRESET) instead of the answer, which is what rejects here.
 */
export function rawExchange(
  url: URL,
  head: { method: string; path: string; version: '1.0' | '1.1'; headers: string[] },
  body: Buffer,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), '127.0.0.1');
    let received = Buffer.alloc(0);
    const answer = (): RawAnswer | null => {
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine = '', ...lines] = received
        .subarray(0, end)
        .toString('latin1')
        .split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
        }),
      );
      const length = Number(headers['content-length']);
      if (received.length - end - 4 < length) return null;
      return {
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: received.subarray(end + 4, end + 4 + length).toString('utf8'),
      };
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const whole = answer();
      if (whole) {
        socket.destroy();
        try {
          checkRawAnswer(url, head, whole);
        } catch (error) {
          reject(error);
          return;
        }
        resolve(whole);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => reject(new Error(error.code)));
    socket.on('close', () => reject(new Error('closed before the whole answer')));
    socket.pause();
    socket.write(
      [
        `${head.method} ${head.path} HTTP/${head.version}`,
        `Host: ${url.host}`,
        ...head.headers,
        '',
        '',
      ].join('\r\n'),
    );
    socket.write(body, (error) => {
      if (!error) socket.resume();
    });
  });
}
