import { expect, fixture, html, waitUntil } from '@open-wc/testing';
import '../../src/index.js';
import type { FileListElement } from '../../src/elements/file-list/file-list.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { registerTranslation } from '../../src/elements/shared/localize.js';
import de from '../../src/locales/de.js';
import ptBR from '../../src/locales/pt-BR.js';
import { file, LOADED, pick, text } from './helpers.js';

// One language registered for the whole file, as a page importing `filehost/locales/de` does.
registerTranslation(de);

function browseText(element: FileUploaderElement): string {
  return element.shadowRoot?.querySelector('.browse')?.textContent?.trim() ?? '';
}

/** An uploader and a list under one `<div lang>`, neither pointed at a service. */
async function pair(lang: string): Promise<{
  root: HTMLElement;
  uploader: FileUploaderElement;
  list: FileListElement;
}> {
  const root = await fixture<HTMLElement>(html`
    <div lang=${lang}>
      <file-uploader max-file-size="1500000"></file-uploader>
      <section><file-list></file-list></section>
    </div>
  `);
  const uploader = root.querySelector('file-uploader') as FileUploaderElement;
  const list = root.querySelector('file-list') as FileListElement;
  await uploader.updateComplete;
  await list.updateComplete;
  return { root, uploader, list };
}

describe('languages', () => {
  afterEach(() => {
    document.documentElement.lang = 'en';
  });

  it('both elements speak the nearest lang, with numbers formatted for it', async () => {
    const { uploader, list } = await pair('de');
    expect(browseText(uploader)).to.equal('Dateien auswählen');
    expect(uploader.shadowRoot?.querySelector('.hint')?.textContent).to.equal(
      'Je Datei bis 1,5 MB. Dateien können auch eingefügt werden.',
    );
    // The shared failure wording: the list has no address.
    expect(text(list)).to.contain(
      'Es ist keine Adresse gesetzt. Geben Sie die API-Adresse an (endpoint).',
    );
  });

  it('a tag Intl cannot read (lang="en_US", as pages write it) draws in English, numbers too', async () => {
    const { uploader } = await pair('en_US');
    expect(browseText(uploader)).to.equal('choose files');
    expect(uploader.shadowRoot?.querySelector('.hint')?.textContent).to.contain('1.5 MB');
  });

  it('falls back from a region to its language, and from an unknown language to English', async () => {
    const swiss = await pair('de-CH');
    expect(browseText(swiss.uploader)).to.equal('Dateien auswählen');
    const swedish = await pair('sv');
    expect(browseText(swedish.uploader)).to.equal('choose files');
    expect(text(swedish.list)).to.contain('No address is set.');
  });

  it('falls back from pt-BR to pt: a regional language serves its language until that is registered', async () => {
    registerTranslation(ptBR);
    for (const lang of ['pt-BR', 'pt', 'pt-PT']) {
      expect(browseText((await pair(lang)).uploader), lang).to.equal('escolha arquivos');
    }
    // European Portuguese, registered as the language itself: it now serves `pt` and `pt-PT`,
    // while `pt-BR` keeps its own.
    registerTranslation({
      ...ptBR,
      $code: 'pt',
      uploader: { ...ptBR.uploader, browse: 'escolha ficheiros' },
    });
    expect(browseText((await pair('pt-BR')).uploader)).to.equal('escolha arquivos');
    expect(browseText((await pair('pt-PT')).uploader)).to.equal('escolha ficheiros');
    expect(browseText((await pair('pt')).uploader)).to.equal('escolha ficheiros');
  });

  it("takes the element's own lang, then an ancestor's, then the document's", async () => {
    document.documentElement.lang = 'de';
    const root = await fixture<HTMLElement>(html`
      <div>
        <file-uploader class="doc"></file-uploader>
        <div lang="en"><file-uploader class="ancestor"></file-uploader></div>
        <div lang="de"><file-uploader class="own" lang="en"></file-uploader></div>
      </div>
    `);
    const [doc, ancestor, own] = ['.doc', '.ancestor', '.own'].map(
      (selector) => root.querySelector(selector) as FileUploaderElement,
    ) as [FileUploaderElement, FileUploaderElement, FileUploaderElement];
    await Promise.all([doc, ancestor, own].map((element) => element.updateComplete));
    expect(browseText(doc)).to.equal('Dateien auswählen');
    expect(browseText(ancestor)).to.equal('choose files');
    expect(browseText(own)).to.equal('choose files');
  });

  it('follows a lang changed at run time, on the document or an ancestor', async () => {
    const { root, uploader, list } = await pair('en');
    root.removeAttribute('lang');
    await waitUntil(() => browseText(uploader) === 'choose files', undefined, LOADED);
    document.documentElement.lang = 'de';
    await waitUntil(
      () => browseText(uploader) === 'Dateien auswählen',
      'the document’s lang',
      LOADED,
    );
    await waitUntil(() => text(list).includes('Es ist keine Adresse gesetzt'), undefined, LOADED);
    root.lang = 'en';
    await waitUntil(() => browseText(uploader) === 'choose files', 'an ancestor’s lang', LOADED);
    await waitUntil(() => text(list).includes('No address is set'), undefined, LOADED);
  });

  it('words again a failure already on screen when the language changes', async () => {
    const { root, uploader } = await pair('en');
    // No key: the file stops before any request; too large: refused before Uppy takes it.
    uploader.endpoint = 'http://localhost:9';
    uploader.multiple = true;
    pick(uploader, [file('small.bin', 10), file('big.bin', 2_000_000)]);
    // What the rows say (the live region keeps what it announced, as it was said).
    const shown = () =>
      [...(uploader.shadowRoot?.querySelectorAll('[part=error]') ?? [])]
        .map((error) => error.textContent?.replace(/\s+/g, ' ').trim())
        .join(' | ');
    await waitUntil(() => shown().includes('No key is set'), 'the setup failure', {
      timeout: 8000,
    });
    await waitUntil(
      () => shown().includes('This file is too large. The limit is 1.5 MB.'),
      undefined,
      LOADED,
    );
    root.lang = 'de';
    await waitUntil(() => shown().includes('Es ist kein Schlüssel gesetzt'), 'reworded', {
      timeout: 8000,
    });
    expect(shown()).to.contain('Diese Datei ist zu groß. Die Grenze liegt bei 1,5 MB.');
    expect(shown()).not.to.contain('No key is set');
    expect(shown()).not.to.contain('too large');
  });

  it('lets strings replace any text over the translation, errors too', async () => {
    const root = await fixture<HTMLElement>(html`
      <div lang="de">
        <file-uploader .strings=${{ browse: 'Datei wählen' }}></file-uploader>
        <file-list .strings=${{ errors: { no_endpoint: () => 'Adresse fehlt.' } }}></file-list>
      </div>
    `);
    const uploader = root.querySelector('file-uploader') as FileUploaderElement;
    const list = root.querySelector('file-list') as FileListElement;
    await uploader.updateComplete;
    await list.updateComplete;
    expect(browseText(uploader)).to.equal('Datei wählen');
    expect(uploader.shadowRoot?.querySelector('.hint')?.textContent).to.equal(
      'Dateien können auch eingefügt werden.',
    );
    expect(text(list)).to.contain('Adresse fehlt.');
  });
});
