import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PartSigner } from '../../../src/server/storage/local-disk/part-signer.js';

describe('per-part URLs of the local-disk store (issued before parts shared one URL)', () => {
  const signer = new PartSigner(Buffer.alloc(32, 1), () => 'http://api.test');
  const part = { uploadId: 'u1', partNumber: 1, size: 10, type: 'image/png' };
  const signed = signer.signedPartUrl({ ...part, expiresAt: 2000 });
  /** What a server sees of the URL: path and query, as sent. */
  const sent = (url: string) => url.slice('http://api.test'.length);
  const canonical = sent(signed.url);

  it('verifies its own signatures and refuses any change to what was signed', () => {
    assert.equal(signer.check(part, canonical, 1000), 'valid');
    assert.equal(signer.check(part, canonical, 3000), 'expired');
    for (const changed of [
      { ...part, uploadId: 'u2' },
      { ...part, partNumber: 2 },
      { ...part, size: 11 },
      { ...part, type: 'text/html' },
    ]) {
      assert.equal(signer.check(changed, canonical, 1000), 'invalid');
    }
    assert.equal(signer.check(part, canonical.replace('2000', '2001'), 1000), 'invalid');
    const other = new PartSigner(Buffer.alloc(32, 2), () => 'http://api.test');
    assert.equal(other.check(part, canonical, 1000), 'invalid');
  });

  it('accepts only the canonical spelling: what a lenient parser reads the same is refused', () => {
    const url = new URL(signed.url);
    const expires = url.searchParams.get('expires') as string;
    const signature = url.searchParams.get('signature') as string;
    const path = url.pathname;
    for (const variant of [
      `${path.replace(/parts\/1$/, 'parts/01')}?expires=${expires}&signature=${signature}`,
      `${path.replace(/parts\/1$/, 'parts/%31')}?expires=${expires}&signature=${signature}`,
      `${path.replace('/u1/', '/%75%31/')}?expires=${expires}&signature=${signature}`,
      `${path}/?expires=${expires}&signature=${signature}`,
      `${path}?signature=${signature}&expires=${expires}`,
      `${path}?expires=${expires}&expires=${expires}&signature=${signature}`,
      `${path}?expires=${expires}&signature=${signature}&signature=${signature}`,
      `${path}?expires=${expires}&signature=${signature}&`,
      `${path}?expires=${expires}&signature=${signature}&x=1`,
      `${path}?expires=0${expires}&signature=${signature}`,
      `${path}?expires=${expires}&signature=${signature.replace(/^./, (c) => `%${c.charCodeAt(0).toString(16)}`)}`,
      `${path}?expires=${expires};signature=${signature}`,
      `${path}?expires=${expires}&signature=${signature}#`,
    ]) {
      assert.equal(signer.check(part, variant, 1000), 'invalid', variant);
    }
  });

  it('refuses every other string: edits, insertions and deletions anywhere (property)', () => {
    // Any character, weighted towards those that mean something in a URL.
    const char = fc.oneof(
      fc.string({ minLength: 1, maxLength: 1 }),
      fc.constantFrom('%', '&', '?', '=', '/', '0', '1', '#', ';', '+', '.'),
    );
    const edit = fc.oneof(
      fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char }),
      fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), char: fc.constant('') }),
    );
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: 3 }), (edits) => {
        let url = canonical;
        for (const { kind, at, char } of edits) {
          const i = at % (url.length + 1);
          if (kind === 'insert') url = url.slice(0, i) + char + url.slice(i);
          else if (kind === 'delete') url = url.slice(0, i) + url.slice(i + 1);
          else url = url.slice(0, i) + char + url.slice(i + 1);
        }
        fc.pre(url !== canonical);
        return signer.check(part, url, 1000) === 'invalid';
      }),
      { seed: 16, numRuns: 2000 },
    );
  });
});

describe('part credentials in headers for the shared part URL', () => {
  const signer = new PartSigner(Buffer.alloc(32, 1), () => 'http://api.test');
  const part = { uploadId: 'u1', partNumber: 1, size: 10, type: 'image/png' };
  const signed = signer.signedPart({ ...part, expiresAt: 2000 });
  /** As Node hands headers to a route: names lower-cased. */
  const lower = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const verdict = (headers: Record<string, string>, now = 1000) => {
    const credential = signer.readCredential(lower(headers));
    return credential ? signer.checkCredential(part, credential, now) : 'invalid';
  };

  it('signs the shared URL with the credential in headers, and verifies it', () => {
    assert.equal(signed.url, 'http://api.test/v1/parts');
    assert.equal(verdict(signed.headers), 'valid');
    assert.equal(verdict(signed.headers, 3000), 'expired');
    for (const changed of [
      { ...part, size: 11 },
      { ...part, type: 'text/html' },
    ]) {
      const credential = signer.readCredential(lower(signed.headers));
      assert.ok(credential);
      assert.equal(signer.checkCredential(changed, credential, 1000), 'invalid');
    }
  });

  it('keeps the two forms apart: a per-part URL signature is no header credential', () => {
    const url = new URL(signer.signedPartUrl({ ...part, expiresAt: 2000 }).url);
    const headers = {
      ...signed.headers,
      'X-Filehost-Signature': url.searchParams.get('signature') as string,
    };
    assert.equal(verdict(headers), 'invalid');
  });

  it('refuses every edit of a header value (property)', () => {
    const names = Object.keys(signed.headers).filter((name) => name !== 'Content-Type');
    const char = fc.oneof(
      fc.string({ minLength: 1, maxLength: 1 }),
      fc.constantFrom('0', '1', '+', '-', '_', '.', ' ', ',', 'A'),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.oneof(
          fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), char }),
          fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), char }),
          fc.record({ kind: fc.constant('delete' as const), at: fc.nat(), char: fc.constant('') }),
        ),
        (name, { kind, at, char }) => {
          let value = signed.headers[name] as string;
          const i = at % (value.length + 1);
          if (kind === 'insert') value = value.slice(0, i) + char + value.slice(i);
          else if (kind === 'delete') value = value.slice(0, i) + value.slice(i + 1);
          else value = value.slice(0, i) + char + value.slice(i + 1);
          fc.pre(value !== signed.headers[name]);
          return verdict({ ...signed.headers, [name]: value }) === 'invalid';
        },
      ),
      { seed: 18, numRuns: 2000 },
    );
  });
});

describe('a signed checksum requirement (uploads signed with checksum: true)', () => {
  const signer = new PartSigner(Buffer.alloc(32, 1), () => 'http://api.test');
  const part = { uploadId: 'u1', partNumber: 1, size: 10, type: 'image/png' };
  const lower = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

  it('leaves the signatures of parts without it as they were', () => {
    const before = signer.signedPart({ ...part, expiresAt: 2000 });
    assert.deepEqual(signer.signedPart({ ...part, expiresAt: 2000, checksum: null }), before);
    assert.equal(
      signer.signedPartUrl({ ...part, expiresAt: 2000, checksum: null }).url,
      signer.signedPartUrl({ ...part, expiresAt: 2000 }).url,
    );
  });

  it('signs it into the header credential: it cannot be dropped, changed or added', () => {
    const checked = signer.signedPart({ ...part, expiresAt: 2000, checksum: 'sha256' });
    const plain = signer.signedPart({ ...part, expiresAt: 2000 });
    const credential = signer.readCredential(lower(checked.headers));
    assert.equal(credential?.checksum, 'sha256');
    assert.equal(credential && signer.checkCredential(part, credential, 1000), 'valid');
    const { 'X-Filehost-Checksum': _, ...dropped } = checked.headers;
    const added = { ...plain.headers, 'X-Filehost-Checksum': 'sha256' };
    for (const headers of [dropped, added]) {
      const read = signer.readCredential(lower(headers));
      assert.equal(read && signer.checkCredential(part, read, 1000), 'invalid');
    }
    for (const value of ['md5', 'SHA256', 'sha256 ', '']) {
      const read = signer.readCredential(
        lower({ ...checked.headers, 'X-Filehost-Checksum': value }),
      );
      assert.equal(read, null, value);
    }
  });

  it('signs it into a per-part URL as a parameter in its one canonical place', () => {
    const url = signer.signedPartUrl({ ...part, expiresAt: 2000, checksum: 'sha256' }).url;
    const sent = url.slice('http://api.test'.length);
    assert.match(sent, /^\/v1\/uploads\/u1\/parts\/1\?expires=2000&checksum=sha256&signature=/);
    assert.equal(signer.urlChecksum(sent), 'sha256');
    assert.equal(signer.check({ ...part, checksum: 'sha256' }, sent, 1000), 'valid');
    const signature = new URL(url).searchParams.get('signature') as string;
    for (const variant of [
      sent.replace('&checksum=sha256', ''),
      `/v1/uploads/u1/parts/1?checksum=sha256&expires=2000&signature=${signature}`,
      `/v1/uploads/u1/parts/1?expires=2000&signature=${signature}&checksum=sha256`,
    ]) {
      const checksum = signer.urlChecksum(variant);
      assert.equal(signer.check({ ...part, checksum }, variant, 1000), 'invalid', variant);
    }
  });
});
