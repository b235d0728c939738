import { aTimeout, expect, fixture, html, waitUntil } from '@open-wc/testing';
import { emulateMedia, executeServerCommand, sendKeys } from '@web/test-runner-commands';
import axe from 'axe-core';
import '../../src/index.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { formatBytes } from '../../src/elements/shared/format.js';
import { registerTranslation } from '../../src/elements/shared/localize.js';
import de from '../../src/locales/de.js';
import { LOADED, next, project, text, uploadToken } from './helpers.js';

// As a page importing `filehost/locales/de` does.
registerTranslation(de);

/** The stand-in remote site (a real HTTP server on loopback, see `filehost-remote`). */
function remote(): Promise<string> {
  return executeServerCommand('filehost-remote') as Promise<string>;
}

type Project = Awaited<ReturnType<typeof project>>;

async function uploader(p: Project, sources = 'files link', lang = 'en') {
  const root = await fixture<HTMLElement>(
    html`<div lang=${lang}><file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey}
      sources=${sources}></file-uploader></div>`,
  );
  const element = root.querySelector('file-uploader') as FileUploaderElement;
  await waitUntil(
    () => element.shadowRoot?.querySelector('input[name=url]'),
    'the Link field',
    LOADED,
  );
  return element;
}

/** Types `url` in the Link field and presses Enter, as a keyboard user does. */
async function importByKeyboard(element: FileUploaderElement, url: string): Promise<void> {
  const input = element.shadowRoot?.querySelector('input[name=url]') as HTMLInputElement;
  input.focus();
  await sendKeys({ type: url });
  await sendKeys({ press: 'Enter' });
}

async function audit(element: FileUploaderElement, state: string): Promise<void> {
  document.documentElement.style.colorScheme = 'light dark';
  document.body.style.background = 'Canvas';
  document.body.style.color = 'CanvasText';
  for (const colorScheme of ['light', 'dark'] as const) {
    await emulateMedia({ colorScheme });
    await element.updateComplete;
    await aTimeout(250);
    const { violations } = await axe.run(element);
    expect(
      violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join('; ')}`),
      `${state}, ${colorScheme}`,
    ).to.deep.equal([]);
  }
  await emulateMedia({ colorScheme: 'light' });
}

describe('<file-uploader sources="link">', () => {
  it('is off by default: no URL field, and no Link chunk fetched', async () => {
    const p = await project();
    const element = await fixture<FileUploaderElement>(
      html`<file-uploader endpoint=${p.endpoint} api-key=${p.publishableKey}></file-uploader>`,
    );
    await aTimeout(300);
    expect(element.shadowRoot?.querySelector('input[name=url]')).to.equal(null);
    const fetched = performance
      .getEntriesByType('resource')
      .some((entry) => entry.name.includes('file-uploader/link-source'));
    // Later tests of this file fetch it; none has run before this one.
    expect(fetched).to.equal(false);
  });

  it('imports a URL typed and submitted with Enter: a labelled field, the row shows progress, upload-success with the record', async () => {
    const p = await project();
    const base = await remote();
    const element = await uploader(p);
    const input = element.shadowRoot?.querySelector('input[name=url]') as HTMLInputElement;
    // Labelled: its label names it.
    expect(input.labels?.[0]?.textContent?.trim()).to.equal('Link to a file');
    const started = next(element, 'upload-start');
    const progress: { bytesUploaded: number; bytesTotal: number }[] = [];
    element.addEventListener('upload-progress', (event) => progress.push(event.detail));
    const success = next(element, 'upload-success', 30_000);
    await importByKeyboard(element, `${base}/slow.bin`);
    expect((await started).file.name).to.equal('slow.bin');
    await waitUntil(() => text(element).includes('Importing'), 'the row says it imports', {
      timeout: 10_000,
    });
    // Part of the file is in, and the row's bar says how much (the remote sends it over 4 s).
    await waitUntil(
      () => progress.some((p) => p.bytesUploaded > 0 && p.bytesUploaded < 256 * 1024),
      'progress part of the way',
      { timeout: 10_000 },
    );
    expect(progress.some((p) => p.bytesTotal === 256 * 1024)).to.equal(true);
    const bar = element.shadowRoot?.querySelector('.imports [role=progressbar]');
    expect(Number(bar?.getAttribute('aria-valuenow'))).to.be.greaterThan(0);
    const { record, file } = await success;
    expect(record.status).to.equal('ready');
    expect(record.size).to.equal(256 * 1024);
    expect(file.name).to.equal('slow.bin');
    await waitUntil(() => text(element).includes('Uploaded'), 'the row says it is done', LOADED);
    await audit(element, 'an imported file');
  });

  it('upload-token alone: the row follows the import (progress, then the record), and a failure is worded', async () => {
    const p = await project({ requireUploadToken: true });
    const base = await remote();
    const { token } = await uploadToken(p.publishableKey, { policy: { metadata: { user: 'u5' } } });
    const root = await fixture<HTMLElement>(
      html`<div><file-uploader endpoint=${p.endpoint} upload-token=${token}
        sources="link"></file-uploader></div>`,
    );
    const element = root.querySelector('file-uploader') as FileUploaderElement;
    await waitUntil(
      () => element.shadowRoot?.querySelector('input[name=url]'),
      'the Link field',
      LOADED,
    );
    const progress: { bytesUploaded: number; bytesTotal: number }[] = [];
    element.addEventListener('upload-progress', (event) => progress.push(event.detail));
    const success = next(element, 'upload-success', 30_000);
    await importByKeyboard(element, `${base}/slow.bin`);
    await waitUntil(
      () => progress.some((p) => p.bytesUploaded > 0 && p.bytesUploaded < 256 * 1024),
      'progress part of the way',
      { timeout: 10_000 },
    );
    const bar = element.shadowRoot?.querySelector('.imports [role=progressbar]');
    expect(Number(bar?.getAttribute('aria-valuenow'))).to.be.greaterThan(0);
    // A page cannot cancel an import: its running row offers to remove it, not to cancel.
    const running = element.shadowRoot?.querySelector('.imports .action');
    expect(running?.textContent?.trim()).to.equal('Remove');
    const { record } = await success;
    expect(record.status).to.equal('ready');
    expect(record.size).to.equal(256 * 1024);
    // The token's metadata: the import was the token's.
    expect(record.metadata).to.deep.equal({ user: 'u5' });
    await waitUntil(() => text(element).includes('Uploaded'), 'the row says it is done', LOADED);

    const failed = next(element, 'upload-error', 30_000);
    await importByKeyboard(element, `${base}/missing.bin`);
    const failure = await failed;
    expect(failure.code).to.equal('import_http_error');
    await waitUntil(() => text(element).includes('(import_http_error)'), undefined, LOADED);
    await audit(element, 'imports with an upload token');
  });

  it('tokenProvider alone: asked for a token, the import is followed to its record', async () => {
    const p = await project({ requireUploadToken: true });
    const base = await remote();
    let asked = 0;
    const root = await fixture<HTMLElement>(
      html`<div><file-uploader endpoint=${p.endpoint} sources="link"
        .tokenProvider=${async () => {
          asked += 1;
          return uploadToken(p.publishableKey);
        }}></file-uploader></div>`,
    );
    const element = root.querySelector('file-uploader') as FileUploaderElement;
    await waitUntil(
      () => element.shadowRoot?.querySelector('input[name=url]'),
      'the Link field',
      LOADED,
    );
    const success = next(element, 'upload-success', 30_000);
    await importByKeyboard(element, `${base}/slow.bin`);
    const { record } = await success;
    expect(record.status).to.equal('ready');
    expect(asked).to.equal(1);
  });

  it('words a failed import in the element language, with its code; Retry for import_http_error', async () => {
    const p = await project();
    const base = await remote();
    const element = await uploader(p);
    const failed = next(element, 'upload-error', 30_000);
    await importByKeyboard(element, `${base}/missing.bin`);
    const failure = await failed;
    expect(failure.code).to.equal('import_http_error');
    expect(failure.message).to.equal(
      'The site behind the link did not give the file. Check the link and retry.',
    );
    await waitUntil(() => text(element).includes('(import_http_error)'), undefined, LOADED);
    // Its size was never known: the row shows none (not "0 B").
    const meta = element.shadowRoot?.querySelector('.imports [data-status=failed] .meta');
    expect(meta?.checkVisibility()).to.equal(false);
    const actions = [...(element.shadowRoot?.querySelectorAll('.imports .action') ?? [])].map(
      (button) => button.textContent?.trim(),
    );
    expect(actions).to.include('Retry');
    // Announced in the live region, as the element's other failures are.
    await waitUntil(
      () =>
        element.shadowRoot
          ?.querySelector('[role=status]')
          ?.textContent?.includes('was not uploaded'),
      undefined,
      LOADED,
    );
    await audit(element, 'a failed import');
  });

  it('in German, and no Retry for a refused target', async () => {
    const p = await project();
    const base = await remote();
    const element = await uploader(p, 'link', 'de');
    const failed = next(element, 'upload-error', 30_000);
    // A redirect to what is not http(s): the service refuses the target.
    await importByKeyboard(element, `${base}/to-ftp`);
    const failure = await failed;
    expect(failure.code).to.equal('import_refused_target');
    expect(failure.message).to.include('öffentlichen Link');
    await element.updateComplete;
    const actions = [...(element.shadowRoot?.querySelectorAll('.imports .action') ?? [])].map(
      (button) => button.textContent?.trim(),
    );
    expect(actions).to.not.include('Erneut versuchen');
    expect(actions.length).to.equal(1);
  });

  it('names the limit an import passed, in the page’s language (a token’s maxFileSize of 100 kB)', async () => {
    const p = await project();
    const base = await remote();
    const { token } = await uploadToken(p.publishableKey, { policy: { maxFileSize: 100_000 } });
    const root = await fixture<HTMLElement>(
      html`<div lang="de"><file-uploader endpoint=${p.endpoint} upload-token=${token}
        sources="link"></file-uploader></div>`,
    );
    const element = root.querySelector('file-uploader') as FileUploaderElement;
    await waitUntil(
      () => element.shadowRoot?.querySelector('input[name=url]'),
      'the Link field',
      LOADED,
    );
    const failed = next(element, 'upload-error', 30_000);
    // 256 KiB declared by the remote site: more than the token allows.
    await importByKeyboard(element, `${base}/slow.bin`);
    const failure = await failed;
    expect([failure.code, failure.details.limit]).to.deep.equal(['too_large', 100_000]);
    expect(failure.message).to.equal(
      `Die Datei hinter dem Link ist für diese Website zu groß. Die Grenze liegt bei ${formatBytes(100_000, 'de')}.`,
    );
    await waitUntil(() => text(element).includes(failure.message), undefined, LOADED);
  });

  it('says a link that is not http(s) is not one, in the field, without a request', async () => {
    const p = await project();
    const element = await uploader(p);
    await importByKeyboard(element, 'ftp://example.com/a');
    await element.updateComplete;
    const input = element.shadowRoot?.querySelector('input[name=url]') as HTMLInputElement;
    expect(input.getAttribute('aria-invalid')).to.equal('true');
    expect(text(element)).to.include('Enter a link that starts with https://');
    expect(element.shadowRoot?.querySelector('.imports')).to.equal(null);
    await audit(element, 'a link refused in the field');
  });
});
