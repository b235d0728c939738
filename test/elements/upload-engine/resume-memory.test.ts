import { expect } from '@open-wc/testing';
import {
  type KeptUpload,
  rememberedFor,
} from '../../../src/elements/upload-engine/resume-memory.js';
import { forget, remember } from '../../../src/elements/upload-engine/resume-writes.js';

/**
 * What `<file-uploader>` remembers for a reload, in this browser's real IndexedDB: changes
 * made together are written together, and one that cannot be written loses no other.
 */
const entry = (name: string, file: File | null = null): KeptUpload => ({
  endpoint: 'http://resume-memory.test',
  apiKey: 'pk_live_resume',
  id: `up_${name}`,
  token: null,
  fingerprint: `["${name}"]`,
  name,
  size: 3,
  file,
});

describe('resume memory (IndexedDB)', () => {
  afterEach(async () => {
    for (const upload of await rememberedFor(entry('x').endpoint, entry('x').apiKey)) {
      await forget(upload);
    }
  });

  it('writes what is remembered together, and one that cannot be written loses no other', async () => {
    // A value IndexedDB cannot store (a function: DataCloneError) between two it can.
    const unstorable = { ...entry('b'), file: (() => 0) as unknown as File };
    await Promise.all([
      remember(entry('a', new File(['abc'], 'a.txt'))),
      remember(unstorable),
      remember(entry('c')),
    ]);
    const names = (await rememberedFor(entry('x').endpoint, entry('x').apiKey))
      .map((upload) => upload.name)
      .sort();
    expect(names).to.deep.equal(['a', 'c']);
  });

  it('takes the last change of a key made together: remembered then forgotten is gone', async () => {
    await remember(entry('kept'));
    await Promise.all([remember(entry('gone')), forget(entry('gone'))]);
    const names = (await rememberedFor(entry('x').endpoint, entry('x').apiKey)).map(
      (upload) => upload.name,
    );
    expect(names).to.deep.equal(['kept']);
  });

  it("keeps a newer upload's entry of the same file when an older one's late forget names its own", async () => {
    const older = { ...entry('same'), id: 'up_older' };
    const newer = { ...entry('same'), id: 'up_newer' };
    await remember(older);
    await remember(newer);
    // The older upload's forget, after its file was chosen again and remembered anew.
    await forget(older, older.id);
    const kept = await rememberedFor(entry('x').endpoint, entry('x').apiKey);
    expect(kept.map((upload) => upload.id)).to.deep.equal(['up_newer']);
    await forget(newer, newer.id);
    expect(await rememberedFor(entry('x').endpoint, entry('x').apiKey)).to.deep.equal([]);
  });
});
