// @deployments embedded scale (no store: the same on both)
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { refusedRequest } from '../../../src/server/http/request-guard.js';
import { answerToBytes } from '../../helpers/answer-to-bytes.js';

/** Names a request may carry, singletons among them, in the cases clients write them. */
const NAMES = [
  'Authorization',
  'authorization',
  'AUTHORIZATION',
  'Range',
  'range',
  'X-Filename',
  'x-filename',
  'X-Metadata',
  'X-Upload-Token',
  'x-filehost-part',
  'Content-Type',
  'Accept',
  'accept',
  'Accept-Language',
  'User-Agent',
  'Cookie',
  'X-Trace',
  'x-trace',
];
const SINGLETONS = new Set([
  'authorization',
  'range',
  'x-filename',
  'x-metadata',
  'x-upload-token',
  'x-filehost-part',
  'content-type',
]);

describe('the request guard, on what Node parsed from the wire', () => {
  let server: Server;
  let url: string;
  before(async () => {
    // Answers what the guard said of each request as Node's parser made it.
    server = createServer((request, response) => {
      response.end(refusedRequest(request)?.message ?? 'ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses exactly the requests that send a singleton header twice, in any case', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-z0-9]{1,8}$/)), {
          maxLength: 14,
        }),
        async (headers) => {
          const lines = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
          const { text } = await answerToBytes(
            url,
            `GET /x HTTP/1.1\r\nHost: x\r\n${lines}Connection: close\r\n\r\n`,
          );
          const counts = new Map<string, number>();
          for (const [name] of headers) {
            const lower = name.toLowerCase();
            counts.set(lower, (counts.get(lower) ?? 0) + 1);
          }
          const repeated = [...counts].some(([name, n]) => SINGLETONS.has(name) && n > 1);
          const said = text.slice(text.indexOf('\r\n\r\n') + 4);
          assert.equal(said === 'ok', !repeated, `${lines}-> ${said}`);
          if (repeated) assert.match(said, /^Send the .+ header once\.$/);
        },
      ),
      { numRuns: 150 },
    );
  });
});
