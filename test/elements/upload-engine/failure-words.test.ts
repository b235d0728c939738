import { aTimeout, expect } from '@open-wc/testing';
import { ReactiveElement } from 'lit';
import { ApiError } from '../../../src/client/api-error.js';
import { loadServiceWords } from '../../../src/elements/shared/failure-text.js';
import { Connections } from '../../../src/elements/upload-engine/connections.js';
import { newFileUpload } from '../../../src/elements/upload-engine/file-state.js';
import type { UploadCallbacks } from '../../../src/elements/upload-engine/file-view.js';
import { loadTokenChunk, UploadRuns } from '../../../src/elements/upload-engine/upload-run.js';
import { englishTexts, settingsFor } from './engine-support.js';

class RunsHost extends ReactiveElement {
  readonly texts = englishTexts();
  readonly locale = 'en';
}
customElements.define('failure-words-host', RunsHost);

/**
 * A page of its own: the English words of the service's refusals (`en-service.ts`, with the
 * token chunk) are fetched with the page's first refusal, and a file may be paused while
 * they are on their way. (Run by `UploadRuns` itself: the element's tests bundle every
 * chunk, so that fetch is over before a test could act, while a page's takes a round trip.)
 */
describe('UploadRuns: a file paused while the words of its failure are on their way', () => {
  it('stays paused: its failure is neither reported nor retried (its resume starts it afresh)', async () => {
    const heard: string[] = [];
    const callbacks: UploadCallbacks = {
      added: () => undefined,
      started: () => undefined,
      progress: () => undefined,
      succeeded: (one) => heard.push(`succeeded ${one.name}`),
      failed: (one, failure) => heard.push(`failed ${one.name} ${failure.code}`),
      allDone: () => heard.push('all done'),
    };
    const host = new RunsHost();
    const settings = settingsFor('http://127.0.0.1:9', 'pk_live_test');
    const runs = new UploadRuns(host, settings, callbacks, new Connections(), {
      memory: () => null,
      counted: () => undefined,
    });
    const upload = newFileUpload(settings, null);
    upload.outcome = 'running';
    upload.abort = new AbortController();
    runs.uploads.set('refused.pdf', upload);
    // The page's first refusal: its words are fetched before it is worded...
    runs.failed('refused.pdf', new ApiError(415, 'unsupported_type', 'Not this type.'));
    // ...and the user pauses the file meanwhile.
    runs.pause('refused.pdf');
    await Promise.all([loadTokenChunk(), loadServiceWords()]);
    // (The runs' own wait on the same modules ends within the same turn.)
    await aTimeout(0);
    expect(heard).to.deep.equal([]);
    expect(upload.paused).to.equal(true);
    expect(upload.outcome).to.equal('running');
    expect(upload.retry ?? null).to.equal(null);
  });
});
