import { expect } from '@open-wc/testing';
import {
  type BatchItem,
  type BatchOutcome,
  sendInBatches,
} from '../../../src/elements/upload-engine/batch-upload.js';
import { Connections, signRequestFor } from '../../../src/elements/upload-engine/connections.js';
import { newFileUpload } from '../../../src/elements/upload-engine/file-state.js';
import { project, usage } from '../helpers.js';
import { settingsFor, targetOf } from './engine-support.js';

/**
 * The batch upload's request against the real service, imported directly: a file stopped
 * after the engine was told its request is on its way, but before the request left (while
 * the files hash, or the client loads), is not sent, and the service keeps none of them.
 */
describe('sendInBatches (the batch upload of small files)', () => {
  async function send(names: string[], stopWhenSending: (items: BatchItem[]) => BatchItem[]) {
    const p = await project();
    const target = targetOf(settingsFor(p.endpoint, p.publishableKey));
    const items: BatchItem[] = names.map((name, index) => {
      const body = new File([`bytes of ${name} ${index}`], name);
      const upload = newFileUpload(target, null);
      upload.abort = new AbortController();
      return { id: name, body, upload, entry: signRequestFor(body, upload, 'off'), checked: true };
    });
    const stored: string[] = [];
    const failed: string[] = [];
    const outcome: BatchOutcome = {
      // What the page's cancel does when the engine has just marked the files as sending.
      sending: (sent) => {
        for (const item of stopWhenSending(sent)) item.upload.abort?.abort();
      },
      succeeded: (_item, record) => stored.push(record.name),
      failed: (item) => failed.push(item.id),
    };
    await sendInBatches(items, new Connections(), outcome);
    return { stored, failed, files: (await usage(p.publishableKey)).files };
  }

  it('sends nothing when every file is stopped as its request is about to leave', async () => {
    const { stored, files } = await send(['a.bin', 'b.bin'], (sent) => sent);
    expect(stored).to.deep.equal([]);
    expect(files).to.equal(0);
  });

  it('leaves out only the file stopped then: the other is stored', async () => {
    const { stored, failed, files } = await send(['a.bin', 'b.bin'], (sent) => sent.slice(0, 1));
    expect(stored).to.deep.equal(['b.bin']);
    expect(failed).to.deep.equal([]);
    expect(files).to.equal(1);
  });

  it('sends every file nobody stopped', async () => {
    const { stored, files } = await send(['a.bin', 'b.bin', 'c.bin'], () => []);
    expect(stored.sort()).to.deep.equal(['a.bin', 'b.bin', 'c.bin']);
    expect(files).to.equal(3);
  });
});
