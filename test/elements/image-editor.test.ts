import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import '../../src/index.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { registerTranslation } from '../../src/elements/shared/localize.js';
import ar from '../../src/locales/ar.js';
import {
  audit,
  button,
  dialogOf,
  editorLoaded,
  focused,
  jpeg,
  openedEditor,
  shadow,
  UPLOAD_EVENT_MS,
  uploader,
} from './editor-helpers.js';
import { file, LOADED, next, pick, png, project } from './helpers.js';
import { pixel, served, size } from './image-helpers.js';

registerTranslation(ar);

/**
 * `<file-uploader image-editor>` (#57): images wait with Edit and Upload, the editor (a
 * modal dialog, Cropper.js) crops, turns and flips from the keyboard, and what is uploaded
 * is the edited image, read back from the CDN.
 */

describe('<file-uploader image-editor>', () => {
  it('holds images on rows with Edit and Upload, uploads other files at once, and fetches no editor before Edit', async () => {
    const element = await uploader({ multiple: '' });
    const success = next(element, 'upload-success', UPLOAD_EVENT_MS);
    pick(element, [
      await jpeg('one.jpg', 64, 48),
      await jpeg('two.jpg', 64, 48),
      file('notes.txt', 100, 'text/plain'),
    ]);
    // The text file goes as any file does.
    expect((await success).file.name).to.equal('notes.txt');
    await waitUntil(
      () => shadow(element).querySelectorAll('[data-status=waiting]').length === 2,
      undefined,
      LOADED,
    );
    const rows = [...shadow(element).querySelectorAll('[data-status=waiting]')];
    expect(rows.map((row) => row.querySelector('.name')?.textContent)).to.deep.equal([
      'one.jpg',
      'two.jpg',
    ]);
    expect(button(rows[0] as Element, 'Edit').getAttribute('aria-label')).to.equal('Edit one.jpg');
    expect(button(rows[0] as Element, 'Upload').getAttribute('aria-label')).to.equal(
      'Upload one.jpg as it is',
    );
    // Several images at once: no editor opens, and none of its code is fetched.
    await aTimeout(500);
    expect(dialogOf(element)).to.equal(null);
    expect(editorLoaded()).to.equal(false);
    await audit(element, 'images waiting');
    // Upload sends the original as it is.
    const original = next(element, 'upload-success', UPLOAD_EVENT_MS);
    button(rows[1] as Element, 'Upload').click();
    const { record } = await original;
    expect(record.name).to.equal('two.jpg');
    expect(await size(await served(record))).to.deep.equal([64, 48]);
    expect(editorLoaded()).to.equal(false);
    // Edit fetches the editor, and only then.
    button(rows[0] as Element, 'Edit').click();
    await openedEditor(element);
    expect(editorLoaded()).to.equal(true);
    await sendKeys({ press: 'Escape' });
  });

  it('opens by itself for one image; keyboard crop to 1:1 and a turn; uploads the edited image only', async () => {
    const element = await uploader({ 'crop-aspect': '1:1' });
    const edits: unknown[] = [];
    element.addEventListener('image-edit', (event) => edits.push(event.detail));
    // 35 keys below, each a WebDriver round trip in WebKitGTK, and a 3200 × 1600 save.
    const success = next(element, 'upload-success', UPLOAD_EVENT_MS);
    // 3200 × 1600, red on the left half, blue on the right: larger than the editor shows
    // (it shows a copy at most 1600 px long), saved from the original all the same.
    pick(element, [await jpeg('photo.jpg', 3200, 1600)]);
    const dialog = await openedEditor(element);
    // Focus is in the dialog, on the crop area, which says how to use it.
    const stage = dialog.querySelector('.stage') as HTMLElement;
    expect(focused()).to.equal(stage);
    expect(stage.getAttribute('aria-label')).to.equal('Crop area');
    expect(
      dialog.querySelector(`#${stage.getAttribute('aria-describedby')}`)?.textContent,
    ).to.match(/Arrow keys move/);
    await audit(dialog, 'the editor');
    // The square (200 × 200, centered) moved left to the edge with the arrows, then made smaller.
    for (let i = 0; i < 30; i++) await sendKeys({ press: 'ArrowLeft' });
    for (let i = 0; i < 5; i++) await sendKeys({ press: 'Shift+ArrowLeft' });
    // Announced: the crop's size in the image's pixels.
    const status = dialog.querySelector('[role=status]') as HTMLElement;
    await waitUntil(
      () => /Crop area \d+ by \d+ pixels/.test(status.textContent ?? ''),
      undefined,
      LOADED,
    );
    // A quarter turn clockwise, from the keyboard too: Tab to the button, Enter.
    button(dialog, 'Rotate right').focus();
    await sendKeys({ press: 'Enter' });
    await waitUntil(() => /Rotated 90 degrees/.test(status.textContent ?? ''), undefined, LOADED);
    button(dialog, 'Save').focus();
    await sendKeys({ press: 'Enter' });
    const { record, file: sent } = await success;
    expect(dialogOf(element)).to.equal(null);
    expect(sent.name).to.equal('photo.jpg');
    expect(edits).to.have.length(1);
    const edit = edits[0] as {
      file: File;
      crop: { x: number; y: number; width: number; height: number };
      rotate: number;
      flipX: boolean;
      flipY: boolean;
    };
    expect(edit.rotate).to.equal(90);
    expect([edit.flipX, edit.flipY]).to.deep.equal([false, false]);
    // Turned, the image is 1600 × 3200; its whole width fits a square, made a little
    // smaller from the keyboard: at the original's resolution, not the copy's shown.
    expect(edit.crop.width).to.equal(edit.crop.height);
    expect(edit.crop.width).to.be.within(1400, 1600);
    expect(edit.file.type).to.equal('image/jpeg');
    // The CDN serves the edited image: square, as the chosen ratio says, and turned: the
    // red half (left) is now on top, the blue at the bottom.
    const bytes = await served(record);
    const [width, height] = await size(bytes);
    expect(width).to.equal(height);
    expect(width).to.equal(edit.crop.width);
    expect(record.size).to.equal(edit.file.size);
    const top = await pixel(bytes, width / 2, 5);
    const bottom = await pixel(bytes, width / 2, height - 5);
    expect(top[0]).to.be.greaterThan(200);
    expect(top[2]).to.be.lessThan(60);
    expect(bottom[2]).to.be.greaterThan(200);
    expect(bottom[0]).to.be.lessThan(60);
  });

  it('Escape cancels: nothing is sent, the image still waits, and focus is back on its Edit button', async () => {
    const element = await uploader();
    const started: unknown[] = [];
    element.addEventListener('upload-start', (event) => started.push(event.detail));
    pick(element, [await jpeg('cancel-me.jpg', 120, 90)]);
    await openedEditor(element);
    await sendKeys({ press: 'Escape' });
    await waitUntil(() => !dialogOf(element), 'the editor closes', LOADED);
    expect(focused()?.textContent?.trim()).to.equal('Edit');
    expect(shadow(element).querySelector('[data-status=waiting] .name')?.textContent).to.equal(
      'cancel-me.jpg',
    );
    await aTimeout(300);
    expect(started).to.deep.equal([]);
    // Edit opens it again, from the keyboard.
    await sendKeys({ press: 'Enter' });
    await openedEditor(element);
    await sendKeys({ press: 'Escape' });
  });

  it('flips and offers a choice of shapes; right to left in Arabic, with its words', async () => {
    const element = await uploader({ 'crop-aspect': 'free 16:9' });
    element.lang = 'ar';
    element.setAttribute('lang', 'ar');
    const success = next(element, 'upload-success', UPLOAD_EVENT_MS);
    const edits: { crop: { width: number; height: number }; flipX: boolean; rotate: number }[] = [];
    element.addEventListener('image-edit', (event) => edits.push(event.detail));
    pick(element, [await jpeg('wide.jpg', 320, 240)]);
    const dialog = await openedEditor(element);
    expect(dialog.getAttribute('dir')).to.equal('rtl');
    expect(dialog.querySelector('h2')?.textContent).to.equal('تعديل wide.jpg');
    const select = dialog.querySelector('select') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent)).to.deep.equal(['حرّة', '16:9']);
    await audit(dialog, 'the editor in Arabic');
    select.value = '1';
    select.dispatchEvent(new Event('change'));
    button(dialog, 'قلب أفقي').click();
    button(dialog, 'حفظ').click();
    const { record } = await success;
    const edit = edits[0];
    expect(edit?.flipX).to.equal(true);
    expect(edit?.rotate).to.equal(0);
    // 16:9 of a 320 × 240 image: 320 × 180.
    expect(edit?.crop).to.include({ width: 320, height: 180 });
    const bytes = await served(record);
    expect(await size(bytes)).to.deep.equal([320, 180]);
    // Flipped: blue (the right half) on the left now.
    const left = await pixel(bytes, 5, 90);
    expect(left[2]).to.be.greaterThan(200);
    expect(left[0]).to.be.lessThan(60);
  });

  it('editImage(file) opens the editor from script', async () => {
    const element = await uploader({ multiple: '' });
    const image = await jpeg('scripted.jpg', 80, 60);
    element.editImage(image);
    const dialog = await openedEditor(element);
    expect(dialog.querySelector('h2')?.textContent).to.equal('Edit scripted.jpg');
    button(dialog, 'Cancel').click();
    await waitUntil(() => !dialogOf(element), undefined, LOADED);
    expect(shadow(element).querySelector('[data-status=waiting] .name')?.textContent).to.equal(
      'scripted.jpg',
    );
  });

  it('lists the images waiting in `files`, holds the form while they wait, lets a form reset clear them, and refuses a type `accept` refuses when it is added', async () => {
    const p = await project();
    const form = await fixture<HTMLFormElement>(
      html`<form><file-uploader name="photos" endpoint=${p.endpoint} api-key=${p.publishableKey}
        image-editor multiple accept="image/jpeg, .txt"></file-uploader></form>`,
    );
    const element = form.querySelector('file-uploader') as FileUploaderElement;
    await element.updateComplete;
    const refused = next(element, 'upload-error', UPLOAD_EVENT_MS);
    pick(element, [
      await jpeg('one.jpg', 64, 48),
      await jpeg('two.jpg', 64, 48),
      await png('not-accepted.png'),
    ]);
    // A PNG the page does not accept is refused as it is added, as any other file would be:
    // it never waits for an editor.
    const refusal = await refused;
    expect([refusal.file.name, refusal.code]).to.deep.equal([
      'not-accepted.png',
      'type_not_allowed',
    ]);
    await waitUntil(
      () => element.files.filter((f) => f.status === 'waiting').length === 2,
      undefined,
      LOADED,
    );
    const waiting = element.files.filter((f) => f.status === 'waiting');
    expect(waiting.map((f) => [f.name, f.type, f.record])).to.deep.equal([
      ['one.jpg', 'image/jpeg', null],
      ['two.jpg', 'image/jpeg', null],
    ]);
    expect(element.files.find((f) => f.name === 'not-accepted.png')?.status).to.equal('rejected');
    expect(shadow(element).querySelectorAll('[data-status=waiting]')).to.have.length(2);
    // Nothing uploaded yet: no value; the form is not sent while images wait unsent.
    expect(element.value).to.deep.equal([]);
    expect(new FormData(form).getAll('photos')).to.deep.equal([]);
    await element.updateComplete;
    expect(form.checkValidity()).to.equal(false);
    expect(element.validationMessage).to.equal('Edit or upload the images waiting first.');
    // removeFile takes one off as it takes any file off.
    element.removeFile(waiting[1]?.id ?? '');
    await waitUntil(
      () => shadow(element).querySelectorAll('[data-status=waiting]').length === 1,
      undefined,
      LOADED,
    );
    expect(element.files.filter((f) => f.status === 'waiting').map((f) => f.name)).to.deep.equal([
      'one.jpg',
    ]);
    // Uploaded, it is the form's value, and the form may go.
    const success = next(element, 'upload-success', UPLOAD_EVENT_MS);
    button(shadow(element).querySelector('[data-status=waiting]') as Element, 'Upload').click();
    const { record } = await success;
    await waitUntil(
      () => form.checkValidity(),
      'the form is valid once the image is uploaded',
      LOADED,
    );
    expect(new FormData(form).getAll('photos')).to.deep.equal([record.url]);
    expect(element.files.some((f) => f.status === 'waiting')).to.equal(false);
    // A form reset lets go of the images waiting as of every other file.
    pick(element, [await jpeg('three.jpg', 64, 48), await jpeg('four.jpg', 64, 48)]);
    await waitUntil(
      () => element.files.filter((f) => f.status === 'waiting').length === 2,
      undefined,
      LOADED,
    );
    await element.updateComplete;
    expect(form.checkValidity()).to.equal(false);
    form.reset();
    await waitUntil(() => element.files.length === 0, 'the reset clears the list', LOADED);
    await element.updateComplete;
    expect(shadow(element).querySelectorAll('[data-status=waiting]')).to.have.length(0);
    expect(form.checkValidity()).to.equal(true);
    expect(new FormData(form).getAll('photos')).to.deep.equal([]);
  });
});
