import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DEFAULT_NAME,
  METADATA_MAX_KEY_LENGTH,
  METADATA_MAX_KEYS,
  METADATA_MAX_VALUE_LENGTH,
  NAME_MAX_BYTES,
} from '../../../src/api/limits.js';
import { UNSAFE_NAME_CHARS } from '../../../src/api/names.js';
import { formatCursor, parseCursor } from '../../../src/server/api/list-cursor.js';
import { ServiceError } from '../../../src/server/ground/errors.js';
import { normalizeMediaType } from '../../../src/server/ground/media-type.js';
import { parseMetadataJson, validateMetadata } from '../../../src/server/rules/metadata.js';
import { decodeFilenameHeader, sanitizeName } from '../../../src/server/rules/names.js';

/**
 * Properties of every parser and canonicaliser of client input that is not covered beside
 * its own module (Range: byte-range.test.ts; signed URLs: storage/part-signer.test.ts;
 * the upload log: storage/upload-log.test.ts; multipart bodies: http-fuzz.test.ts, through
 * the running service). Seeded, so a failure replays; fast-check prints the smallest case.
 */
const RUNS = { seed: 1616, numRuns: 1000 };

/** The one way a parser of client input may fail: a documented 400. */
function refusedAsClientError(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'invalid_request') return true;
    throw error;
  }
}

/** Strings that look like what a client (or an attacker) would send: any code unit. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ maxLength: 300 }),
);

const utf8Bytes = (value: string) => Buffer.byteLength(value, 'utf8');

describe('list cursors', () => {
  const position = fc.record({
    createdAt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    id: fc.stringMatching(/^[A-Za-z0-9_-]{1,128}$/),
  });

  it('read back every cursor this service writes', () => {
    fc.assert(
      fc.property(position, (p) => {
        assert.deepEqual(parseCursor(formatCursor(p)), { ...p });
      }),
      RUNS,
    );
  });

  it('refuse anything else as invalid_request, never with another error', () => {
    fc.assert(
      fc.property(fc.oneof(anyText, fc.stringMatching(/^\d{0,20}_[ -~]{0,140}$/)), (text) => {
        let parsed: ReturnType<typeof parseCursor> = null;
        if (
          refusedAsClientError(() => {
            parsed = parseCursor(text);
          })
        )
          return;
        if (text === '') return assert.equal(parsed, null);
        // Accepted: it names a real position, which writes back to a cursor naming the same.
        assert.ok(parsed);
        assert.deepEqual(parseCursor(formatCursor(parsed)), parsed);
      }),
      RUNS,
    );
  });
});

describe('display names', () => {
  it('are always safe to show: NFC, no unsafe characters, at most 255 bytes, never empty', () => {
    fc.assert(
      fc.property(fc.option(anyText, { nil: undefined }), (raw) => {
        const name = sanitizeName(raw);
        assert.ok(name.length > 0);
        assert.ok(utf8Bytes(name) <= NAME_MAX_BYTES, `${utf8Bytes(name)} bytes`);
        assert.equal(name, name.normalize('NFC'));
        assert.equal(name.match(UNSAFE_NAME_CHARS), null);
        assert.equal(name, name.trim());
        assert.ok(!/^\.+$/.test(name), 'not only dots');
        // No lone surrogate halves: the name is valid UTF-8 once stored.
        assert.equal(Buffer.from(name, 'utf8').toString('utf8'), name);
      }),
      RUNS,
    );
  });

  it('clean once and for all: cleaning a clean name changes nothing', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        const once = sanitizeName(raw);
        assert.equal(sanitizeName(once), once);
      }),
      RUNS,
    );
  });

  it('keep a name that is already safe, whole', () => {
    const safe = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      .map((value) => value.normalize('NFC'))
      .filter((value) => value === sanitizeName(value) && utf8Bytes(value) <= NAME_MAX_BYTES);
    fc.assert(
      fc.property(safe, (name) => assert.equal(sanitizeName(name), name)),
      RUNS,
    );
    assert.equal(sanitizeName(''), DEFAULT_NAME);
  });
});

describe('percent-decoding of X-Filename', () => {
  it('reads back whatever a client percent-encodes', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 100 }), (name) => {
        assert.equal(decodeFilenameHeader(encodeURIComponent(name)), name);
      }),
      RUNS,
    );
  });

  it('answers any header value with a string or invalid_request', () => {
    const escapes = fc
      .array(
        fc.oneof(
          fc.constantFrom('%', '%2', '%zz', '%C3', '%C3%A9', '%E2%82', '%FF', '%00', '%25'),
          fc.string({ unit: 'binary-ascii', maxLength: 5 }),
        ),
        { maxLength: 12 },
      )
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(escapes, anyText), (value) => {
        let decoded: string | undefined;
        if (
          refusedAsClientError(() => {
            decoded = decodeFilenameHeader(value);
          })
        )
          return;
        assert.equal(typeof decoded, 'string');
      }),
      RUNS,
    );
  });
});

describe('metadata', () => {
  const validMetadata = fc
    .dictionary(
      fc
        .string({ minLength: 1, maxLength: METADATA_MAX_KEY_LENGTH })
        .filter((k) => k !== '__proto__'),
      fc.string({ maxLength: METADATA_MAX_VALUE_LENGTH }),
      { maxKeys: METADATA_MAX_KEYS },
    )
    .map((metadata) => ({ ...metadata }));

  it('keeps valid metadata exactly, from an object or from its JSON text', () => {
    fc.assert(
      fc.property(validMetadata, (metadata) => {
        assert.deepEqual(validateMetadata(metadata, 'metadata'), metadata);
        assert.deepEqual(parseMetadataJson(JSON.stringify(metadata), 'X-Metadata'), metadata);
      }),
      RUNS,
    );
  });

  it('answers any JSON value or text with metadata within the limits, or invalid_request', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.json().map((text) => ({ text })),
          anyText.map((text) => ({ text })),
        ),
        (input) => {
          let result: Record<string, string> = {};
          const run =
            typeof input === 'object' &&
            input !== null &&
            'text' in input &&
            Object.keys(input).length === 1
              ? () => {
                  result = parseMetadataJson(
                    String((input as { text: unknown }).text),
                    'X-Metadata',
                  );
                }
              : () => {
                  result = validateMetadata(input, 'metadata');
                };
          if (refusedAsClientError(run)) return;
          const entries = Object.entries(result);
          assert.ok(entries.length <= METADATA_MAX_KEYS);
          for (const [key, value] of entries) {
            assert.ok(key.length >= 1 && key.length <= METADATA_MAX_KEY_LENGTH);
            assert.equal(typeof value, 'string');
            assert.ok(value.length <= METADATA_MAX_VALUE_LENGTH);
          }
          assert.equal(Object.getPrototypeOf(result), Object.prototype);
        },
      ),
      RUNS,
    );
  });
});

describe('media types', () => {
  it('normalise once and for all, or refuse with invalid_request', () => {
    const shaped = fc
      .tuple(
        fc.stringMatching(/^[A-Za-z0-9!#$&^_.+-]{1,12}$/),
        fc.stringMatching(/^[A-Za-z0-9!#$&^_.+-]{1,12}$/),
        fc.array(fc.tuple(fc.stringMatching(/^[A-Za-z-]{1,8}$/), fc.string({ maxLength: 10 })), {
          maxLength: 3,
        }),
      )
      .map(
        ([type, subtype, params]) =>
          `${type}/${subtype}${params.map(([k, v]) => `; ${k}=${JSON.stringify(v)}`).join('')}`,
      );
    fc.assert(
      fc.property(fc.oneof(shaped, anyText), (value) => {
        let normal = '';
        if (
          refusedAsClientError(() => {
            normal = normalizeMediaType(value, 'type');
          })
        )
          return;
        assert.equal(normalizeMediaType(normal, 'type'), normal);
        assert.equal(normal, normal.trim());
        assert.doesNotMatch(normal, /[\r\n]/, 'never a header break');
      }),
      RUNS,
    );
  });
});
