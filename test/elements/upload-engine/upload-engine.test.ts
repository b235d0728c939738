import { expect } from '@open-wc/testing';
import { ReactiveElement } from 'lit';
import type { FileRecord } from '../../../src/api/types.js';
import type { UploadFailure } from '../../../src/elements/upload-engine/failure.js';
import type {
  FileSummary,
  UploadCallbacks,
  UploaderSettings,
} from '../../../src/elements/upload-engine/file-view.js';
import { UploadEngine } from '../../../src/elements/upload-engine/upload-engine.js';
import { file, project } from '../helpers.js';
import { englishTexts, settingsFor } from './engine-support.js';

/** A real element as the engine's host: its texts and language, and its redraws counted. */
class EngineHost extends ReactiveElement {
  readonly texts = englishTexts();
  readonly locale = 'en';
  redraws = 0;
  override requestUpdate(...args: Parameters<ReactiveElement['requestUpdate']>): void {
    this.redraws++;
    super.requestUpdate(...args);
  }
}
customElements.define('engine-test-host', EngineHost);

/** What the engine told its element, in order. */
function recorder() {
  const heard: string[] = [];
  let finished: (result: Parameters<UploadCallbacks['allDone']>[0]) => void = () => undefined;
  const allDone = new Promise<Parameters<UploadCallbacks['allDone']>[0]>((resolve) => {
    finished = resolve;
  });
  const callbacks: UploadCallbacks = {
    added: (files: FileSummary[]) => heard.push(`added ${files.map((f) => f.name).join(',')}`),
    started: (one) => heard.push(`started ${one.name}`),
    progress: () => undefined,
    succeeded: (one, record: FileRecord) => heard.push(`succeeded ${one.name} ${record.status}`),
    failed: (one, failure: UploadFailure) => heard.push(`failed ${one.name} ${failure.code}`),
    allDone: (result) => finished(result),
  };
  return { heard, callbacks, allDone };
}

/**
 * The upload engine imported directly, without `<file-uploader>` or its controller: Uppy,
 * the sign step, the upload sequence's batched sign and complete, against the real service.
 */
describe('UploadEngine (without the element)', () => {
  let host: EngineHost;
  beforeEach(() => {
    host = document.createElement('engine-test-host') as EngineHost;
    document.body.append(host);
  });
  afterEach(() => host.remove());

  function engineFor(settings: UploaderSettings, callbacks: UploadCallbacks): UploadEngine {
    const engine = new UploadEngine(host, settings, callbacks);
    engine.connect();
    return engine;
  }

  it('uploads files added together, each told as it goes, then all done with every record', async () => {
    const p = await project();
    const { heard, callbacks, allDone } = recorder();
    const engine = engineFor(settingsFor(p.endpoint, p.publishableKey), callbacks);
    engine.addFiles([file('a.txt', 100, 'text/plain', 1), file('b.txt', 2000, 'text/plain', 2)]);
    const result = await allDone;
    expect(result.failed).to.deep.equal([]);
    expect(result.successful.map((record) => [record.name, record.size]).sort()).to.deep.equal([
      ['a.txt', 100],
      ['b.txt', 2000],
    ]);
    expect(heard[0]).to.equal('added a.txt,b.txt');
    expect(heard.filter((line) => line.startsWith('succeeded')).sort()).to.deep.equal([
      'succeeded a.txt ready',
      'succeeded b.txt ready',
    ]);
    expect(engine.files.map((view) => view.status)).to.deep.equal(['done', 'done']);
    expect(host.redraws).to.be.greaterThan(0);
    engine.disconnect();
  });

  it('lists a file its restrictions refuse, with the rule, and sends the others', async () => {
    const p = await project();
    const { heard, callbacks, allDone } = recorder();
    const engine = engineFor(
      settingsFor(p.endpoint, p.publishableKey, { maxFileSize: 500 }),
      callbacks,
    );
    engine.addFiles([
      file('small.txt', 100, 'text/plain', 3),
      file('large.txt', 501, 'text/plain', 4),
    ]);
    const result = await allDone;
    expect(result.successful.map((record) => record.name)).to.deep.equal(['small.txt']);
    expect(heard).to.include('failed large.txt too_large');
    const views = engine.files.map((view) => [view.name, view.status]);
    expect(views).to.deep.equal([
      ['small.txt', 'done'],
      ['large.txt', 'rejected'],
    ]);
    engine.disconnect();
  });

  it('fails a file whose key the service refuses, worded for the page, without retrying it', async () => {
    const p = await project();
    const { callbacks, allDone } = recorder();
    const engine = engineFor(settingsFor(p.endpoint, 'pk_live_unknown_key_000000'), callbacks);
    engine.addFiles([file('x.txt', 10, 'text/plain', 5)]);
    const result = await allDone;
    expect(result.successful).to.deep.equal([]);
    expect(result.failed.map(({ file: one, failure }) => [one.name, failure.step])).to.deep.equal([
      ['x.txt', 'sign'],
    ]);
    expect(result.failed[0]?.failure.status).to.equal(401);
    expect(engine.files.map((view) => view.status)).to.deep.equal(['failed']);
    engine.disconnect();
  });
});
