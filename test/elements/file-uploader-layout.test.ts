import { expect, fixture, html } from '@open-wc/testing';
import '../../src/index.js';
import type { FileUploaderElement } from '../../src/elements/file-uploader/file-uploader.js';
import { file, pick, until } from './helpers.js';

const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)));

/** The widest row drawn inside the element, against the element's own width. */
function widths(element: HTMLElement): { element: number; widestRow: number; list: number } {
  const rows = [...(element.shadowRoot?.querySelectorAll<HTMLElement>('.file') ?? [])];
  const list = element.shadowRoot?.querySelector<HTMLElement>('ul');
  return {
    element: element.getBoundingClientRect().width,
    widestRow: Math.max(...rows.map((row) => row.getBoundingClientRect().width)),
    list: list?.getBoundingClientRect().width ?? 0,
  };
}

describe('<file-uploader> layout', () => {
  it('rows off screen follow the element when it narrows (a phone turned, a window made smaller)', async () => {
    // Rows out of view are skipped by the browser (content-visibility) and keep the size
    // they were last drawn at: that must be their height only, or a narrowed element's rows
    // keep their old width and push the page sideways.
    const element = await fixture<FileUploaderElement>(html`
      <file-uploader
        style="display: block; width: 700px"
        endpoint="http://127.0.0.1:9"
        api-key="pk_live_x"
        accept=".pdf"
        multiple
      ></file-uploader>
    `);
    pick(
      element,
      Array.from({ length: 40 }, (_, i) => file(`notes-${i}.txt`, 10, 'text/plain')),
    );
    await until(() => element.files.filter((f) => f.status === 'rejected').length === 40);
    await element.updateComplete;
    // Every row drawn once at the wide size: scroll each into view.
    for (const row of element.shadowRoot?.querySelectorAll<HTMLElement>('.file') ?? []) {
      row.scrollIntoView();
      await frame();
    }
    window.scrollTo(0, 0);
    await frame();
    expect(widths(element).widestRow).to.be.greaterThan(600);

    element.style.width = '300px';
    await frame();
    await frame();
    const narrow = widths(element);
    expect(narrow.element).to.equal(300);
    expect(narrow.list).to.be.at.most(300);
    expect(narrow.widestRow).to.be.at.most(300);
    expect(document.documentElement.scrollWidth).to.be.at.most(window.innerWidth);
  });
});
