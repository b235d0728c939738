import { expect } from '@open-wc/testing';
import Uppy, { type Meta } from '@uppy/core';
import { rejectionOf } from '../../../src/elements/upload-engine/rejections.js';
import { englishTexts } from './engine-support.js';

/**
 * Why Uppy's restrictions refused a file, worded as the rule it broke: a real Uppy with the
 * restrictions the engine sets, its real errors, imported without the element.
 */
describe('rejectionOf (files refused before anything is sent)', () => {
  const texts = englishTexts();
  function uppyWith(restrictions: Record<string, unknown>) {
    return new Uppy<Meta, Record<string, unknown>>({ restrictions });
  }
  /** What Uppy throws when it refuses `file`, and the rule `rejectionOf` names. */
  function refused(
    uppy: Uppy<Meta, Record<string, unknown>>,
    file: File,
    settings: Parameters<typeof rejectionOf>[3],
  ) {
    let thrown: unknown;
    try {
      uppy.addFile({ name: file.name, type: file.type, data: file, source: 'test' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown, `${file.name} is refused`).to.be.instanceOf(Error);
    return rejectionOf(file, thrown, uppy, settings)(texts, 'en');
  }
  const none = { maxFileSize: null, maxFiles: null, accept: null };

  it('names each rule: empty, too large, a duplicate, one too many, a type not accepted', () => {
    const uppy = uppyWith({
      minFileSize: 1,
      maxFileSize: 10,
      maxNumberOfFiles: 2,
      allowedFileTypes: ['.txt'],
    });
    const settings = { maxFileSize: 10, maxFiles: 2, accept: ['.txt'] };
    expect(refused(uppy, new File([], 'empty.txt'), settings).code).to.equal('empty_body');
    const large = refused(uppy, new File(['x'.repeat(11)], 'large.txt'), settings);
    expect([large.code, large.step]).to.deep.equal(['too_large', 'validate']);
    expect(large.message).to.contain('10 B');
    // The same file twice: Uppy's id of a file includes its last change.
    const first = new File(['a'], 'a.txt', { lastModified: 1 });
    uppy.addFile({ name: first.name, type: first.type, data: first, source: 'test' });
    expect(refused(uppy, new File(['a'], 'a.txt', { lastModified: 1 }), settings).code).to.equal(
      'duplicate_file',
    );
    uppy.addFile({ name: 'b.txt', type: '', data: new File(['b'], 'b.txt'), source: 'test' });
    const many = refused(uppy, new File(['c'], 'c.txt'), settings);
    expect(many.code).to.equal('too_many_files');
    expect(many.message).to.contain('2');
    const other = uppyWith({ allowedFileTypes: ['.txt', 'image/*'] });
    const type = refused(other, new File(['%PDF'], 'doc.pdf', { type: 'application/pdf' }), {
      ...none,
      accept: ['.txt', 'image/*'],
    });
    expect(type.code).to.equal('type_not_allowed');
    expect(type.message).to.contain('.txt, image/*');
    uppy.destroy();
    other.destroy();
  });
});
