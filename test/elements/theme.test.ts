import { expect, fixture, html } from '@open-wc/testing';
import '../../src/index.js';

/** The computed colour of a part's border, once the element has drawn. */
async function borderOf(element: HTMLElement, part: string): Promise<string> {
  await (element as HTMLElement & { updateComplete: Promise<unknown> }).updateComplete;
  const node = element.shadowRoot?.querySelector<HTMLElement>(`[part~="${part}"]`);
  if (!node) throw new Error(`no part ${part}`);
  return getComputedStyle(node).borderTopColor;
}

describe('one palette for both elements (--filehost-*)', () => {
  it('a shared property styles both; an element’s own property wins for that element', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`
      <div style="--filehost-border: rgb(1, 2, 3)">
        <file-uploader endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-uploader>
        <file-list endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-list>
        <file-list style="--file-list-border: rgb(4, 5, 6)" endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-list>
      </div>
    `);
    const [uploader, list, ownList] = [...wrapper.children] as HTMLElement[];
    expect(await borderOf(uploader as HTMLElement, 'dropzone')).to.equal('rgb(1, 2, 3)');
    expect(await borderOf(list as HTMLElement, 'base')).to.equal('rgb(1, 2, 3)');
    expect(await borderOf(ownList as HTMLElement, 'base')).to.equal('rgb(4, 5, 6)');
  });

  it('without any, both draw the same default palette', async () => {
    const wrapper = await fixture<HTMLDivElement>(html`
      <div>
        <file-uploader endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-uploader>
        <file-list endpoint="http://127.0.0.1:9" api-key="pk_live_x"></file-list>
      </div>
    `);
    const [uploader, list] = [...wrapper.children] as HTMLElement[];
    const expected = matchMedia('(prefers-color-scheme: dark)').matches
      ? 'rgb(51, 65, 85)'
      : 'rgb(203, 213, 225)';
    expect(await borderOf(uploader as HTMLElement, 'dropzone')).to.equal(expected);
    expect(await borderOf(list as HTMLElement, 'base')).to.equal(expected);
  });
});
