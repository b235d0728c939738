import { expect } from '@open-wc/testing';
import '../../src/index.js';
import type { FileRecord } from '../../src/api/types.js';
import { publicUrlOf } from '../helpers/public-url.js';
import { file, sameBytes } from './helpers.js';
import {
  contains,
  halves,
  pixel,
  served,
  size,
  uploader,
  uploadOne,
  withExif,
} from './image-helpers.js';

describe('<file-uploader> makes images smaller before sending them', () => {
  it('scales a photo to max-image-width, upright, with its EXIF and GPS position gone', async () => {
    const original = withExif(await halves(400, 200));
    expect(contains(original, 'Exif')).to.equal(true);
    // The browser shows the original upright: 200 x 400, the red half on top.
    expect(await size(original)).to.deep.equal([200, 400]);
    const element = await uploader({ 'max-image-width': '100' });
    const [record] = (await uploadOne(element, [
      new File([original], 'photo.jpg', { type: 'image/jpeg' }),
    ])) as [FileRecord];
    const bytes = await served(record);
    expect(record.size).to.equal(bytes.length);
    expect(record.size).to.be.below(original.length);
    expect(record.name).to.equal('photo.jpg');
    expect(record.mime).to.equal('image/jpeg');
    expect(contains(bytes, 'Exif')).to.equal(false);
    expect(await size(bytes)).to.deep.equal([100, 200]);
    const [top, bottom] = [await pixel(bytes, 50, 20), await pixel(bytes, 50, 180)];
    expect(top[0]).to.be.above(200);
    expect(top[2]).to.be.below(60);
    expect(bottom[2]).to.be.above(200);
    expect(bottom[0]).to.be.below(60);
    expect(element.files[0]?.size).to.equal(record.size);
  });

  it('bounds the height as well, and writes the type the page asks for (image-type)', async () => {
    const element = await uploader({ 'max-image-height': '50', 'image-type': 'image/webp' });
    const [record] = (await uploadOne(element, [
      new File([await halves(300, 200)], 'wide.jpeg', { type: 'image/jpeg' }),
    ])) as [FileRecord];
    const bytes = await served(record);
    expect(record.name).to.equal('wide.webp');
    expect(record.mime).to.equal('image/webp');
    expect(new TextDecoder().decode(bytes.subarray(8, 12))).to.equal('WEBP');
    expect(await size(bytes)).to.deep.equal([75, 50]);
  });

  it('keeps an image that fits when encoding it again would make it larger; other files go as they are', async () => {
    const small = await halves(64, 64, 0.2);
    const element = await uploader({ 'max-image-width': '1000', 'image-quality': '1' });
    const records = await uploadOne(element, [
      new File([small], 'small.jpg', { type: 'image/jpeg' }),
      file('notes.txt', 3000, 'text/plain', 4),
    ]);
    const image = records.find((record) => record.name === 'small.jpg') as FileRecord;
    const text = records.find((record) => record.name === 'notes.txt') as FileRecord;
    expect(await sameBytes(publicUrlOf(image), small)).to.equal(true);
    expect(text.size).to.equal(3000);
  });

  it('re-encodes an image that fits when that makes it smaller', async () => {
    const heavy = await halves(200, 100, 1);
    const element = await uploader({ 'image-quality': '0.5' });
    const [record] = (await uploadOne(element, [
      new File([heavy], 'heavy.jpg', { type: 'image/jpeg' }),
    ])) as [FileRecord];
    expect(record.size).to.be.below(heavy.length);
    expect(await size(await served(record))).to.deep.equal([200, 100]);
  });

  it('encodes in a worker, off the page', async () => {
    const post = Worker.prototype.postMessage;
    const posted: { options?: { maxWidth?: number | null } }[] = [];
    Worker.prototype.postMessage = function (this: Worker, message: unknown) {
      posted.push(message as (typeof posted)[number]);
      return post.call(this, message);
    };
    try {
      const element = await uploader({ 'max-image-width': '60' });
      const [record] = (await uploadOne(element, [
        new File([await halves(120, 60)], 'w.jpg', { type: 'image/jpeg' }),
      ])) as [FileRecord];
      expect(await size(await served(record))).to.deep.equal([60, 30]);
      // One image to shrink (to 60 px wide) and one to preview in its row (40 px times the
      // pixel ratio), both sent to the worker.
      expect(posted.map((message) => message.options?.maxWidth).sort()).to.deep.equal(
        [60, Math.ceil(40 * devicePixelRatio)].sort(),
      );
    } finally {
      Worker.prototype.postMessage = post;
    }
  });

  it('sends images as they are without any image option', async () => {
    const original = withExif(await halves(40, 20));
    const element = await uploader({});
    const [record] = (await uploadOne(element, [
      new File([original], 'raw.jpg', { type: 'image/jpeg' }),
    ])) as [FileRecord];
    expect(await sameBytes(publicUrlOf(record), original)).to.equal(true);
  });
});
