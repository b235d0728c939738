import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

describe('importing the package where there is no DOM (server-side rendering)', () => {
  it('does not throw, and registers nothing it cannot', async () => {
    assert.equal(typeof (globalThis as { document?: unknown }).document, 'undefined');
    const entry = await import('../../src/index.js');
    assert.equal(typeof entry.FileUploaderElement, 'function');
    assert.equal(typeof entry.FilehostClient, 'function');
    // Lit's server shim provides a registry; where it does, the tag is known there.
    const registry = (globalThis as { customElements?: CustomElementRegistry }).customElements;
    if (registry) assert.equal(registry.get('file-uploader'), entry.FileUploaderElement);
  });
});
