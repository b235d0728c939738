import { connect } from 'node:net';

/**
 * Writes `payload` as is on a connection of its own to `url`'s host (bytes no HTTP client
 * would send: over-long lines, malformed framing) and returns whatever the server answers
 * before closing, and when it closed. With `keepOpenMs` the client does not end its side.
 */
export function answerToBytes(
  url: string,
  payload: string | Buffer,
  options: { keepOpenMs?: number } = {},
): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      text += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
    socket.write(payload);
    if (options.keepOpenMs === undefined) socket.end();
  });
}
