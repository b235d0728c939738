import { expect, waitUntil } from '@open-wc/testing';
import { ReactiveElement } from 'lit';
import type { UploadCallbacks } from '../../../src/elements/upload-engine/file-view.js';
import { rememberedFor } from '../../../src/elements/upload-engine/resume-memory.js';
import { UploadEngine } from '../../../src/elements/upload-engine/upload-engine.js';
import { bytes, HELD, LOADED, network, project } from '../helpers.js';
import { englishTexts, settingsFor } from './engine-support.js';

class RememberHost extends ReactiveElement {
  readonly texts = englishTexts();
  readonly locale = 'en';
}
customElements.define('remember-race-host', RememberHost);

/** A chosen file whose bytes are read (for its fingerprint) only once `open` is called. */
class GatedFile extends File {
  read = false;
  open: () => void = () => undefined;
  readonly #gate = new Promise<void>((resolve) => {
    this.open = resolve;
  });
  override arrayBuffer(): Promise<ArrayBuffer> {
    this.read = true;
    return this.#gate.then(() => super.arrayBuffer());
  }
}

/**
 * The memory of uploads across reloads is keyed by the file (its fingerprint, read from its
 * bytes): an old upload's write still on its way when the same file is removed and chosen
 * again (the same Uppy id) would be the new one's entry, an upload the user removed, listed
 * (or resumed by itself) after a reload.
 */
describe('UploadRuns: a file removed and chosen again while its upload is being remembered', () => {
  it("leaves no memory of the removed upload: the old attempt's write is dropped", async () => {
    const p = await project();
    let succeeded = 0;
    const callbacks: UploadCallbacks = {
      added: () => undefined,
      started: () => undefined,
      progress: () => undefined,
      succeeded: () => succeeded++,
      failed: () => undefined,
      allDone: () => undefined,
    };
    const host = document.createElement('remember-race-host') as RememberHost;
    document.body.append(host);
    // No part checksums: the file's bytes are read only for its fingerprint.
    const settings = settingsFor(p.endpoint, p.publishableKey, {
      rememberUploads: true,
      checksum: 'off',
    });
    const engine = new UploadEngine(host, settings, callbacks);
    engine.connect();
    // Its bytes held, it runs past the moment it is remembered, where its file is read.
    await network('hold', '\\[upload ', HELD);
    const chosen = new GatedFile([bytes(1024 * 1024, 41)], 'kept.bin');
    engine.addFiles([chosen]);
    const [first] = engine.files;
    await waitUntil(() => chosen.read, 'its fingerprint taken (it is being remembered)', LOADED);
    // Removed, and chosen again (the same Uppy id) on a page that no longer remembers: only
    // the old attempt could write a memory of this file.
    engine.remove(first?.id ?? '');
    engine.configure({ ...settings, rememberUploads: false });
    engine.addFiles([chosen]);
    expect(engine.files.map((view) => view.id)).to.deep.equal([first?.id]);
    chosen.open();
    await network('release');
    await waitUntil(() => succeeded === 1, 'the file chosen again uploaded', LOADED);
    // The old attempt's write (its fingerprint, one 50 ms batch) has had its time.
    const deadline = Date.now() + 2000;
    let kept = await rememberedFor(p.endpoint, p.publishableKey);
    while (kept.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      kept = await rememberedFor(p.endpoint, p.publishableKey);
    }
    expect(kept.map((upload) => upload.name)).to.deep.equal([]);
    engine.disconnect();
    host.remove();
  });
});
