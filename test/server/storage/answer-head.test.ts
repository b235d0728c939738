import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_HEAD_BYTES, parseAnswerHead } from '../../../src/server/storage/s3/answer-head.js';

const token = fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,20}$/);
const value = fc.stringMatching(/^[!-~]([ !-~]{0,30}[!-~])?$/);
/** Headers that say nothing about framing, the range or the connection. */
const otherHeader = fc
  .tuple(token, value)
  .filter(
    ([name]) =>
      !['content-length', 'content-range', 'transfer-encoding', 'connection'].includes(
        name.toLowerCase(),
      ),
  );

function head(status: number, headers: [string, string][], version = '1.1'): string {
  return `HTTP/${version} ${status} Reason\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

/** What the bucket's answer heads look like to the relay (`bucket-connections.ts`). */
describe('parseAnswerHead', () => {
  it('reads the status, the length, the range and keep-alive wherever the head is cut', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: null }),
        fc.option(value, { nil: null }),
        fc.array(otherHeader, { maxLength: 8 }),
        fc.constantFrom(null, 'close', 'keep-alive'),
        fc.uint8Array({ maxLength: 64 }),
        fc.nat(),
        (status, length, contentRange, others, connection, body, cutAt) => {
          const headers: [string, string][] = [...others];
          if (length !== null) headers.push(['Content-Length', String(length)]);
          if (contentRange !== null) headers.push(['Content-Range', contentRange]);
          if (connection) headers.push(['Connection', connection]);
          const text = Buffer.from(head(status, headers), 'latin1');
          const bytes = Buffer.concat([text, body]);
          // Cut before the blank line's end: not yet a head.
          assert.equal(parseAnswerHead(bytes.subarray(0, cutAt % text.length)), null);
          assert.deepEqual(parseAnswerHead(bytes), {
            status,
            length,
            contentRange,
            encoded: false,
            keepAlive: connection !== 'close',
            size: text.length,
          });
        },
      ),
    );
  });

  it('says when the body is framed otherwise, and HTTP/1.0 closes unless kept alive', () => {
    const chunked = parseAnswerHead(Buffer.from(head(200, [['Transfer-Encoding', 'chunked']])));
    assert.ok(chunked && !(chunked instanceof Error));
    assert.equal(chunked.encoded, true);
    assert.equal(chunked.length, null);
    const old = parseAnswerHead(Buffer.from(head(200, [['Content-Length', '3']], '1.0')));
    assert.ok(old && !(old instanceof Error));
    assert.equal(old.keepAlive, false);
    const kept = parseAnswerHead(Buffer.from(head(200, [['Connection', 'Keep-Alive']], '1.0')));
    assert.ok(kept && !(kept instanceof Error));
    assert.equal(kept.keepAlive, true);
  });

  it('refuses what is not an answer head, never throws', () => {
    for (const text of [
      'GET / HTTP/1.1\r\n\r\n',
      'HTTP/2 200\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n',
      'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
    ]) {
      assert.ok(parseAnswerHead(Buffer.from(text)) instanceof Error, text);
    }
    assert.ok(parseAnswerHead(Buffer.alloc(MAX_HEAD_BYTES, 'a')) instanceof Error);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const parsed = parseAnswerHead(Buffer.from(bytes));
        assert.ok(parsed === null || parsed instanceof Error || parsed.size <= bytes.length);
      }),
    );
  });
});
