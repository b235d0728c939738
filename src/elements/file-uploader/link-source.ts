import { html, nothing, type ReactiveControllerHost, render, type TemplateResult } from 'lit';
import { isSecretKey, UPLOAD_TOKEN_PREFIX } from '../../api/page-api.js';
import type { FileMetadata, FileRecord, Visibility } from '../../api/types.js';
import { ApiError } from '../../client/api-error.js';
import { ImportCalls, type ImportPaths } from '../../client/import-calls.js';
import { followImport } from '../../client/import-follow.js';
import type { UploadTokenProvider } from '../../client/upload-token.js';
import { en } from '../shared/en.js';
import { describeApiError, loadServiceWords } from '../shared/failure-text.js';
import type { FailureTexts, LinkFailure, LinkText, UploaderTexts } from '../shared/translation.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import type { FailureCode, UploadFailure } from '../upload-engine/failure.js';
import type { FileSummary, FileView } from '../upload-engine/file-view.js';
import { renderFile } from './file-rows.js';

/**
 * `<file-uploader sources="… link">`: a URL field and an Import button, and a row per
 * imported file. Fetched only by pages that ask for the Link source (`loadChunk` in the
 * element), with its English words (`fillLink`): the first load carries neither.
 *
 * The service fetches the file (`POST /v1/uploads/import`); the row follows it with
 * `GET /v1/uploads/:id` and the import's own token, as the typed client's `importFromUrl`
 * does (with an upload token alone too, which may not read files), and the element fires
 * `upload-start`, `upload-progress`, `upload-success` and `upload-error` for it as for an
 * uploaded file.
 */

/**
 * The field's looks, in its chunk (the element's own styles are part of the first load):
 * the uploader's tokens, so a page's theme and dark mode reach it.
 */
const linkStyles = html`<style>
  .link { display: grid; gap: 0.35rem; }
  .link label { font-weight: 600; }
  .link-row { display: flex; gap: 0.5rem; flex-wrap: wrap; }
  .link input {
    flex: 1 1 14rem; min-width: 0; font: inherit; color: var(--_text);
    background: var(--_background); border: 1px solid var(--_border);
    border-radius: calc(var(--_radius) / 1.5); padding: 0.45rem 0.65rem;
  }
  .link input:focus-visible { outline: none; box-shadow: var(--_focus); border-color: var(--_accent); }
  .link input[aria-invalid='true'] { border-color: var(--_error); }
  .link .error { margin: 0; }
  .link + .imports { margin-block-start: var(--_gap); }
  /* A failed import's size is what had arrived, mostly nothing: not "0 B" (its error says
     what happened). Here, not in the rows' code, which is part of the first load. */
  .imports [data-status='failed'] .meta { display: none; }
</style>`;

/** The Link words of English (other languages ship whole). */
const uploader: Pick<UploaderTexts, LinkText> = {
  linkLabel: 'Link to a file',
  linkImport: 'Import',
  linkInvalid: 'Enter a link that starts with https:// or http://.',
  importing: (percent) => `Importing… ${percent}`,
};

const errors: Pick<FailureTexts, LinkFailure> = {
  import_refused_target: () =>
    'This link points to an address the file service may not fetch from. Use a public link.',
  import_http_error: () =>
    'The site behind the link did not give the file. Check the link and retry.',
  import_timeout: () => 'The site behind the link took too long to send the file. Retry later.',
  import_failed: () => 'The file could not be fetched from the link. Retry later.',
  import_too_large: ({ limit }) =>
    `The file behind the link is too large for this site.${limit ? ` The limit is ${limit}.` : ''}`,
  import_unsupported_type: () => 'This type of file is not accepted here.',
};

/** Adds the Link words to the English translation (a call, not an import's side effect). */
export function fillLink(): void {
  Object.assign(en.uploader, uploader);
  Object.assign(en.errors, errors);
}

/** Import codes whose words are not the shared ones: a size or type refused of a link. */
const ALIASES = { too_large: 'import_too_large', unsupported_type: 'import_unsupported_type' };
/** Failures a retry would meet again: no Retry button. */
const FINAL = ['import_refused_target', 'too_large', 'unsupported_type', 'infected', 'unscannable'];

/** The elements the Link source is attached to (each once). */
const attached = new WeakSet<LinkHost>();

/**
 * Gives `host` its Link source (once): drawn right after the drop zone, in a box of its own
 * that the element's template does not know of (so the first load carries no place for
 * it), and drawn again after each of the element's updates.
 */
export function attach(host: LinkHost): void {
  if (attached.has(host)) return;
  attached.add(host);
  const source = new LinkSource(host);
  const box = document.createElement('div');
  box.className = 'link-source';
  const draw = () => {
    const zone = host.renderRoot.querySelector('.dropzone');
    if (zone && zone.nextElementSibling !== box) zone.after(box);
    render(source.render(host.disabled), box, { host });
  };
  host.addController({ hostUpdated: draw });
  draw();
}

/** What the Link source needs of its element. */
export interface LinkHost extends HTMLElement, ReactiveControllerHost {
  disabled: boolean;
  readonly texts: FileUploaderStrings;
  readonly locale: string;
  endpoint: string;
  apiKey: string;
  uploadToken: string | undefined;
  tokenProvider: UploadTokenProvider | undefined;
  metadata: FileMetadata;
  visibility: Visibility | undefined;
  sources: string | undefined;
  renderRoot: HTMLElement | DocumentFragment;
}

/** Fires one of the element's events, as `shared/events.ts` does (not imported: see above). */
function emit<K extends keyof HTMLElementEventMap>(
  host: HTMLElement,
  type: K,
  detail: HTMLElementEventMap[K] extends CustomEvent<infer D> ? D : never,
): void {
  host.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
}

interface Imported {
  view: FileView;
  url: string;
  controller: AbortController;
}

export class LinkSource {
  readonly #host: LinkHost;
  #imports: Imported[] = [];
  /** Why the field's link was not taken (shown under it, and announced). */
  #invalid = false;

  constructor(host: LinkHost) {
    this.#host = host;
    fillLink();
  }

  get files(): FileView[] {
    return this.#imports.map((entry) => entry.view);
  }

  /** Imports `url` as the user's file (the Import button, or `importUrl`). */
  async importUrl(url: string): Promise<void> {
    let parsed: URL | null = null;
    try {
      parsed = new URL(url.trim());
    } catch {
      // Worded below.
    }
    this.#invalid = !parsed || !/^https?:$/.test(parsed.protocol);
    if (this.#invalid || !parsed) {
      this.#say(this.#host.texts.linkInvalid);
      this.#host.requestUpdate();
      return;
    }
    // The service names the file (cleaned) once it answers; until then, the link's last part.
    const name = parsed.pathname.split('/').pop() || parsed.host;
    const entry: Imported = {
      url: parsed.href,
      controller: new AbortController(),
      view: {
        // `waiting-`: not pausable (`isPausable`), as an import cannot be paused.
        id: `waiting-link-${crypto.randomUUID()}`,
        name,
        size: 0,
        type: '',
        thumbnail: null,
        status: 'uploading',
        bytesUploaded: 0,
        fraction: 0,
        failure: null,
        record: null,
        retryAt: null,
      },
    };
    this.#imports.push(entry);
    await this.#run(entry);
  }

  retry(id: string): void {
    const entry = this.#imports.find((item) => item.view.id === id);
    if (!entry) return;
    entry.controller = new AbortController();
    entry.view = { ...entry.view, status: 'uploading', failure: null, fraction: 0 };
    void this.#run(entry);
  }

  /** Stops following an import (the service finishes it) and takes its row away. */
  remove(id: string): void {
    const entry = this.#imports.find((item) => item.view.id === id);
    entry?.controller.abort();
    this.#imports = this.#imports.filter((item) => item !== entry);
    this.#host.requestUpdate();
  }

  async #run(entry: Imported): Promise<void> {
    const host = this.#host;
    const summary = (): FileSummary => {
      const { id, name, size, type } = entry.view;
      return { id, name, size, type };
    };
    host.requestUpdate();
    emit(host, 'upload-start', { file: summary() });
    try {
      // The English words of the rows' states (done, open, …) come with the upload engine,
      // which the element fetches anyway; those of a token's refusals (spent, expired, its
      // provider failed), which an import meets too, with the engine's token chunk.
      const engine = await import('../upload-engine/upload-engine.js');
      const tokenChunk = await engine.loadTokenChunk();
      tokenChunk.fillRefusals();
      const record = await this.#follow(entry, summary, tokenChunk.tokensOf, tokenChunk.routes);
      entry.view = {
        ...entry.view,
        name: record.name,
        size: record.size,
        type: record.mime,
        status: 'done',
        bytesUploaded: record.size,
        fraction: 1,
        record,
      };
      host.requestUpdate();
      this.#succeeded(summary(), record);
    } catch (error) {
      // Most of an import's failures are the service's answers, worded once their words
      // are in (`en-service.ts`); it settles either way.
      await loadServiceWords();
      if (entry.controller.signal.aborted) return;
      const failure = this.#failure(error);
      entry.view = {
        ...entry.view,
        status: 'failed',
        failure,
        refused: FINAL.includes(failure.code),
      };
      host.requestUpdate();
      emit(host, 'upload-error', { file: summary(), ...failure });
      this.#say(host.texts.announceFailed(entry.view.name, failure.message));
    }
  }

  /**
   * Tells screen readers, in the element's polite live region (as its `Announcer` does; an
   * import's news comes at most once a second, so it needs none of its grouping).
   */
  #say(text: string): void {
    const region = this.#host.renderRoot.querySelector('[role=status]');
    if (region) region.textContent = text;
  }

  #succeeded(file: FileSummary, record: FileRecord): void {
    emit(this.#host, 'upload-success', { file, record });
    this.#say(this.#host.texts.announceDone(file.name));
  }

  /**
   * Starts the import and follows it to its end with the typed client's `followImport` (as
   * its `importFromUrl` does): `POST /v1/uploads/import` with the element's token if it has
   * one (an upload call, as the uploads make it), then the import's state each second, the
   * rate at which the service records progress, drawn in the row. Rejects with the import's
   * `ApiError` when it failed.
   */
  async #follow(
    entry: Imported,
    summary: () => FileSummary,
    tokensOf: typeof import('../upload-engine/upload-tokens.js').tokensOf,
    paths: ImportPaths,
  ): Promise<FileRecord> {
    const host = this.#host;
    const { endpoint, apiKey, uploadToken, tokenProvider } = host;
    const tokens = uploadToken || tokenProvider ? tokensOf(uploadToken, tokenProvider) : null;
    // With a token the key may be left out: the import is an upload call.
    // Refused as the elements' `connect` refuses them (not imported: each name this chunk
    // takes from the first load costs the first load an export).
    const key = apiKey || (tokens ? UPLOAD_TOKEN_PREFIX : '');
    const problem = !endpoint
      ? 'no_endpoint'
      : !key.trim()
        ? 'missing_auth'
        : isSecretKey(key)
          ? 'secret_key'
          : null;
    if (problem) throw new ApiError(0, problem as 'network_error', problem);
    const calls = new ImportCalls({ endpoint, apiKey: key, tokens: tokens ?? undefined }, paths);
    return followImport(calls, entry.url, {
      metadata: host.metadata,
      visibility: host.visibility,
      signal: entry.controller.signal,
      onProgress: ({ receivedBytes, totalBytes }, record) => {
        entry.view = {
          ...entry.view,
          name: record.name,
          size: totalBytes ?? receivedBytes,
          bytesUploaded: receivedBytes,
          fraction: totalBytes ? receivedBytes / totalBytes : 0,
        };
        emit(host, 'upload-progress', {
          file: summary(),
          bytesUploaded: receivedBytes,
          bytesTotal: totalBytes ?? 0,
        });
        host.requestUpdate();
      },
    });
  }

  #failure(error: unknown): UploadFailure {
    const { texts, locale } = this.#host;
    const apiError =
      error instanceof ApiError ? error : new ApiError(0, 'network_error', `${error}`);
    const described = describeApiError(apiError, texts.errors, {
      locale,
      origin: location.origin,
      aliases: ALIASES,
    });
    return { ...described, code: described.code as FailureCode, step: 'upload' };
  }

  #onSubmit = (event: Event): void => {
    event.preventDefault();
    const input = (event.target as HTMLFormElement).elements.namedItem('url') as HTMLInputElement;
    const value = input.value;
    void this.importUrl(value);
    if (!this.#invalid) input.value = '';
  };

  /** The field and the imports' rows; nothing unless `sources` names `link`. */
  render(disabled: boolean): TemplateResult | typeof nothing {
    const host = this.#host;
    if (!/\blink\b/.test(host.sources ?? '')) return nothing;
    const t = host.texts;
    const locale = host.locale;
    // A page cannot cancel an import (only the secret key deletes): the button of a running
    // one stops following it and takes its row away, so it says Remove, not Cancel.
    const text = {
      ...t,
      uploading: (percent: string) => t.importing(percent),
      cancel: t.remove,
      cancelLabel: t.removeLabel,
    };
    return html`
      ${linkStyles}
      <form part="link" class="link" @submit=${this.#onSubmit} novalidate>
        <label for="link-url">${t.linkLabel}</label>
        <span class="link-row">
          <input id="link-url" part="link-input" name="url" type="url" inputmode="url"
            placeholder="https://" autocomplete="url" ?disabled=${disabled}
            aria-invalid=${this.#invalid ? 'true' : 'false'}
            aria-describedby=${this.#invalid ? 'link-error' : nothing} />
          <button part="link-button" class="action primary" type="submit" ?disabled=${disabled}>
            ${t.linkImport}</button>
        </span>
        ${this.#invalid ? html`<p id="link-error" part="error" class="error">${t.linkInvalid}</p>` : nothing}
      </form>
      ${
        this.#imports.length > 0
          ? html`<ul part="list" class="imports" aria-label=${t.fileListLabel}>
              ${this.#imports.map((entry) => renderFile(entry.view, text, locale, this.#commands))}
            </ul>`
          : nothing
      }
    `;
  }

  #commands = {
    upload: () => {},
    retry: (id: string) => this.retry(id),
    pauseFile: () => {},
    resumeFile: () => {},
    removeFile: (id: string) => this.remove(id),
    pauseAllFiles: () => {},
    resumeAllFiles: () => {},
    cancelAll: () => {},
  };
}
