import { request } from 'node:http';
import { patternBytes } from './bytes.js';

/**
 * Sends `POST /v1/upload/batch` to `apiUrl` with `key`: a batch of the `whole` files and one
 * more of `cutSize` bytes, and cuts the connection 5,000 bytes into that last one. Resolves
 * once the connection is gone.
 */
export async function cutBatch(
  apiUrl: string,
  key: string,
  whole: Uint8Array[],
  cutSize: number,
): Promise<void> {
  const boundary = 'cutcutcut';
  const part = (index: number) =>
    `\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f${index}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const entries = [...whole.map((bytes) => bytes.length), cutSize].map((size, index) => ({
    name: `f${index}.bin`,
    size,
  }));
  const head = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="files"\r\n\r\n${JSON.stringify(entries)}`,
    ),
    ...whole.flatMap((bytes, index) => [Buffer.from(part(index)), bytes]),
    Buffer.from(part(whole.length)),
    patternBytes(5000, 2),
  ]);
  await new Promise<void>((resolve) => {
    const sent = request(apiUrl, {
      method: 'POST',
      path: '/v1/upload/batch',
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': `multipart/form-data; boundary=${boundary}`,
        'Content-Length': String(head.length + cutSize),
      },
    });
    sent.on('error', () => resolve());
    sent.on('close', () => resolve());
    sent.write(head, () => setTimeout(() => sent.destroy(), 200));
  });
}
