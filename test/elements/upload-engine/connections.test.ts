import { expect } from '@open-wc/testing';
import { Connections, signRequestFor } from '../../../src/elements/upload-engine/connections.js';
import { LocalFailure } from '../../../src/elements/upload-engine/failure-cause.js';
import { newFileUpload } from '../../../src/elements/upload-engine/file-state.js';
import { project } from '../helpers.js';
import { settingsFor, targetOf } from './engine-support.js';

/**
 * The engine's clients and upload sequences, one per endpoint and key, against the real
 * service: imported directly, without the element.
 */
describe('Connections (the engine’s clients and upload sequences)', () => {
  it('gives one client and one sequence per endpoint and key, sharing the element’s pending cap', async () => {
    const p = await project();
    const connections = new Connections();
    const here = targetOf(settingsFor(p.endpoint, p.publishableKey));
    const again = targetOf(settingsFor(p.endpoint, p.publishableKey, { metadata: { a: '1' } }));
    const other = targetOf(settingsFor(`${p.endpoint}/`, p.publishableKey));
    const client = await connections.clientFor(here);
    expect(await connections.clientFor(again)).to.equal(client);
    expect(await connections.clientFor(other)).not.to.equal(client);
    const sequence = await connections.sequenceFor(here);
    expect(await connections.sequenceFor(again)).to.equal(sequence);
    const otherSequence = await connections.sequenceFor(other);
    expect(otherSequence).not.to.equal(sequence);
    // One cap for the element, whichever endpoint a file goes to.
    expect(otherSequence.pending).to.equal(connections.unfinished);
    expect(sequence.pending).to.equal(connections.unfinished);
  });

  it('signs files asked for together in one batch call of the real service, and completes them', async () => {
    const p = await project();
    const connections = new Connections();
    const target = targetOf(settingsFor(p.endpoint, p.publishableKey));
    const sequence = await connections.sequenceFor(target);
    const files = [new File(['one'], 'one.txt'), new File(['two!'], 'two.txt')];
    const prepared = await Promise.all(
      files.map((file) =>
        sequence.prepare({
          request: () => signRequestFor(file, newFileUpload(target, null), 'off'),
        }),
      ),
    );
    expect(prepared.map((one) => one.together)).to.deep.equal([true, true]);
    expect(prepared.map((one) => one.state)).to.deep.equal([null, null]);
    const records = await Promise.all(
      prepared.map(async ({ plan, together }, index) => {
        const part = plan.parts[0];
        if (!part) throw new Error('no part');
        const put = await fetch(part.url, {
          method: 'PUT',
          body: files[index],
          headers: part.headers,
        });
        expect(put.ok).to.equal(true);
        return sequence.finish({ id: plan.uploadId, uploadToken: plan.uploadToken, together });
      }),
    );
    expect(records.map((record) => [record.name, record.status])).to.deep.equal([
      ['one.txt', 'ready'],
      ['two.txt', 'ready'],
    ]);
  });

  it('refuses a secret key and a missing key before any request, as the element words it', async () => {
    const p = await project();
    const connections = new Connections();
    // A secret key's shape (`sk_…`): refused by its prefix, so none is needed.
    for (const apiKey of ['sk_live_never_in_a_page', '']) {
      let thrown: unknown;
      try {
        await connections.clientFor(targetOf(settingsFor(p.endpoint, apiKey)));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(LocalFailure);
    }
  });

  it('tells the sign what the element knows of a file: its folder path, visibility, checksum rule', () => {
    const target = targetOf(
      settingsFor('http://x.test', 'pk_live_x', {
        metadata: { album: 'a' },
        visibility: 'private',
      }),
    );
    const upload = newFileUpload(target, null, 'trip/a.txt');
    expect(
      signRequestFor(new File(['abc'], 'a.txt', { type: 'text/plain' }), upload, 'small'),
    ).to.deep.equal({
      name: 'a.txt',
      size: 3,
      type: 'text/plain',
      checksum: true,
      metadata: { album: 'a', relativePath: 'trip/a.txt' },
      visibility: 'private',
    });
    const big = { name: 'big.bin', size: 6 * 1024 * 1024, type: '' };
    expect(signRequestFor(big, newFileUpload(target, null), 'small').checksum).to.equal(false);
    expect(signRequestFor(big, newFileUpload(target, null), 'all').checksum).to.equal(true);
    expect(signRequestFor(new File(['abc'], 'a.txt'), upload, 'off').checksum).to.equal(false);
  });
});
