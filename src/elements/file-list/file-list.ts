import { html, LitElement, nothing, type PropertyValues } from 'lit';
import { repeat } from 'lit/directives/repeat.js';
import { LIST_DEFAULT_LIMIT, LIST_MAX_LIMIT } from '../../api/limits.js';
import type { FileRecord } from '../../api/types.js';
import type { ApiError } from '../../client/api-error.js';
import { FilehostConnection } from '../../client/connection.js';
import { Announcer } from '../shared/announcer.js';
import { type ConnectionProblem, connect } from '../shared/connection.js';
import { emit } from '../shared/events.js';
import { failureDetails } from '../shared/failure-details.js';
import {
  describeApiError,
  failureContext,
  loadServiceWords,
  type ServiceFailure,
} from '../shared/failure-text.js';
import {
  formatBytes,
  formatCount,
  formatDate,
  formatDateTime,
  formatRelative,
  localeOf,
  pluralForm,
} from '../shared/format.js';
import { fileIcon } from '../shared/icons.js';
import { hideBrokenImage } from '../shared/images.js';
import { followLang, textsWith, translationFor } from '../shared/localize.js';
import { sharedStyles } from '../shared/styles.js';
import { styles } from './file-list.styles.js';
import { PagingController } from './paging-controller.js';
import { RowGroups } from './row-groups.js';
import type { FileListOverrides, FileListStrings } from './strings.js';

export type { FileListOverrides, FileListStrings } from './strings.js';

/** An error of the list, as the page sees it in `list-error` and the user reads it. */
export type FileListFailure = ServiceFailure;

export interface FileListEventMap {
  /** A page of files arrived (the first, or one more). */
  'list-load': CustomEvent<{ files: FileRecord[]; hasMore: boolean; loaded: number }>;
  /** Files could not be loaded. */
  'list-error': CustomEvent<FileListFailure>;
  /** The user chose a file: a click on its row, or Enter on it. */
  'file-select': CustomEvent<{ file: FileRecord }>;
}

declare global {
  interface HTMLElementEventMap extends FileListEventMap {}
  interface HTMLElementTagNameMap {
    'file-list': FileListElement;
  }
}

/** Files newer than this show a relative time ("5 minutes ago"); older ones a date. */
/** Images the CDN makes variants of (decisions.md, image variants); others are shown as they are. */
const VARIANT_TYPES = /^image\/(jpeg|png|webp|avif|gif|tiff)$/;
const RELATIVE_FOR_MS = 7 * 24 * 3600 * 1000;
const COPIED_FOR_MS = 2000;
/** The `code` of `list-error` for each reason the list cannot reach the service. */
const CONNECTION_PROBLEM_CODES: Record<ConnectionProblem, string> = {
  no_endpoint: 'missing_endpoint',
  missing_auth: 'missing_auth',
  secret_key: 'invalid_key',
};

/**
 * The project's files, newest first, with their CDN links: pages through the API as the
 * user scrolls (or presses "Load more"), and shows new uploads at the top at once.
 *
 * @tagname file-list
 * @summary Lists the files of a filehost project, paged, with CDN links.
 *
 * @fires list-load - A page of files arrived. `detail.files`, `detail.hasMore`, `detail.loaded`.
 * @fires list-error - Files could not be loaded. `detail.code`, `detail.status`, `detail.message`.
 * @fires file-select - The user chose a file (click or Enter on its row). `detail.file`.
 *
 * @csspart base - The frame around everything.
 * @csspart list - The list of files.
 * @csspart item - One file.
 * @csspart thumbnail - A file's picture or icon.
 * @csspart name - A file's name.
 * @csspart link - The link to a file on the CDN.
 * @csspart meta - Size, type and upload time.
 * @csspart copy-button - The button that copies a file's link.
 * @csspart load-more - The "Load more" button.
 * @csspart footer - The line under the list (loading, end of list).
 * @csspart empty - The message of an empty project.
 * @csspart error - The error message.
 *
 * @cssprop --file-list-accent - Links and focus. Default #2563eb (dark: #60a5fa).
 * @cssprop --file-list-text - Text color.
 * @cssprop --file-list-muted - Secondary text.
 * @cssprop --file-list-background - Background.
 * @cssprop --file-list-surface - Hovered rows, thumbnails, loading placeholders.
 * @cssprop --file-list-border - Borders between rows.
 * @cssprop --file-list-error - Error text.
 * @cssprop --file-list-radius - Corner radius. Default 0.75rem.
 * @cssprop --file-list-row-gap - Space between rows. Default 0.
 * @cssprop --file-list-row-height - Height of a row. Default 3.75rem.
 * @cssprop --file-list-font - Font shorthand. Default inherit.
 * @cssprop --file-list-focus-ring - The focus indicator (a box-shadow).
 * @cssprop --filehost-accent - Shared by both elements (each element's own property wins): accent. Default #2563eb (dark: #60a5fa).
 * @cssprop --filehost-on-accent - Shared: text on the accent color.
 * @cssprop --filehost-text - Shared: text color.
 * @cssprop --filehost-muted - Shared: secondary text.
 * @cssprop --filehost-background - Shared: background.
 * @cssprop --filehost-surface - Shared: raised surfaces.
 * @cssprop --filehost-border - Shared: borders. Default #cbd5e1 (dark: #334155).
 * @cssprop --filehost-error - Shared: errors.
 * @cssprop --filehost-success - Shared: finished files.
 * @cssprop --filehost-radius - Shared: corner radius. Default 0.75rem.
 * @cssprop --filehost-font - Shared: font shorthand. Default inherit.
 * @cssprop --filehost-focus-ring - Shared: the focus indicator (a box-shadow).
 */
export class FileListElement extends LitElement {
  static override styles = [sharedStyles, styles];

  static override properties = {
    endpoint: { type: String },
    apiKey: { type: String, attribute: 'api-key' },
    pageSize: { type: Number, attribute: 'page-size' },
    htmlFor: { type: String, attribute: 'for' },
    strings: { attribute: false },
    loading: { type: Boolean, reflect: true },
    _active: { state: true },
    _copied: { state: true },
  };

  /** Base URL of the filehost API, e.g. `http://localhost:8787`. */
  declare endpoint: string;
  /** The publishable key (`pk_live_…`). */
  declare apiKey: string;
  /** Files per page: 1 to 100. Default 50. */
  declare pageSize: number;
  /** The id of a `<file-uploader>` whose uploads appear at the top at once. */
  declare htmlFor: string;
  /** Replaces any of the texts (see `FileListStrings`). */
  declare strings: FileListOverrides;
  /** Reflected while a page is loading. */
  declare loading: boolean;
  /** @internal */
  declare _active: number;
  /** @internal */
  declare _copied: { id: string; ok: boolean } | null;

  readonly #paging: PagingController;
  readonly #groups = new RowGroups<FileRecord>();
  readonly #announcer = new Announcer(this);
  #observer: IntersectionObserver | null = null;
  #observed: Element | null = null;
  #seenFiles = 0;
  #copiedTimer: ReturnType<typeof setTimeout> | null = null;
  /** Draws a placeholder: from its chunk, loaded once a file of the list has one. */
  #drawPlaceholder: typeof import('./placeholders.js')['default'] | undefined;
  /** Settles once that chunk is in; one that cannot be loaded (offline) leaves the icons. */
  #placeholdersLoading: Promise<void> | undefined;
  /** What is wrong with `endpoint` or `api-key`, worded at each render (in the current language). */
  #localFailure: ConnectionProblem | null = null;

  constructor() {
    super();
    followLang(this);
    this.endpoint = '';
    this.apiKey = '';
    this.pageSize = LIST_DEFAULT_LIMIT;
    this.htmlFor = '';
    this.strings = {};
    this.loading = false;
    this._active = 0;
    this._copied = null;
    this.#paging = new PagingController(this, {
      onPage: (page) => {
        emit(this, 'list-load', {
          files: page.files,
          hasMore: page.hasMore,
          loaded: this.#paging.files.length,
        });
        const count = this.#paging.files.length;
        const locale = this.locale;
        this.#announcer.say(
          this.texts.announceLoaded(formatCount(count, locale), pluralForm(count, locale)),
        );
      },
      onError: (error) => {
        const report = () => {
          // A newer source took over while the words were on their way: not this list's.
          if (this.#paging.error !== error) return;
          const failure = this.#describe(error);
          emit(this, 'list-error', failure);
          this.#announcer.say(failure.message);
        };
        // An answer of the service is worded once its words are in (`en-service.ts`); a
        // lost connection is worded already, and could not fetch them.
        if (error.code !== 'network_error') return loadServiceWords().then(report);
        report();
        return undefined;
      },
    });
  }

  get texts(): FileListStrings {
    return textsWith(translationFor(localeOf(this)), 'list', this.strings);
  }

  get locale(): string {
    return localeOf(this);
  }

  /** The files loaded so far, newest first. */
  get files(): readonly FileRecord[] {
    return this.#paging.files;
  }

  /** Settles when the page being loaded (if any) has arrived or failed. */
  get pageLoaded(): Promise<void> {
    return this.#paging.settled;
  }

  /** Reloads from the first page. */
  refresh(): Promise<void> {
    return this.#paging.reset(this.#client(), this.#limit());
  }

  /** Loads the next page now (the list also does this by itself near the end). */
  loadMore(): Promise<void> {
    return this.#paging.loadMore();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    // Uploads finished anywhere on the page bubble up to the document.
    document.addEventListener('upload-success', this.#onUploadSuccess);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    document.removeEventListener('upload-success', this.#onUploadSuccess);
    this.#observer?.disconnect();
    this.#observer = null;
    this.#observed = null;
  }

  override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('endpoint') || changed.has('apiKey') || changed.has('pageSize')) {
      void this.#paging.reset(this.#client(), this.#limit());
      this._active = 0;
    }
    this.loading = this.#paging.state === 'loading';
  }

  override updated(): void {
    this.#watchEnd();
  }

  #limit(): number {
    const size = Math.round(Number(this.pageSize));
    return Number.isFinite(size) ? Math.min(LIST_MAX_LIMIT, Math.max(1, size)) : LIST_DEFAULT_LIMIT;
  }

  /** A client for the current address and key, or null (with the reason shown) if there is none. */
  #client(): FilehostConnection | null {
    const connection = connect(FilehostConnection, this.endpoint, this.apiKey);
    if (connection instanceof FilehostConnection) {
      this.#localFailure = null;
      return connection;
    }
    this.#localFailure = connection;
    return null;
  }

  #describe(error: ApiError): FileListFailure {
    return describeApiError(error, this.texts.errors, {
      locale: this.locale,
      origin: location.origin,
    });
  }

  /** An upload that finished on the page: shown at the top at once if it is this list's. */
  #onUploadSuccess = (event: Event): void => {
    const source = event.composedPath()[0];
    const record = (event as CustomEvent<{ record?: FileRecord }>).detail?.record;
    if (!record || !(source instanceof HTMLElement) || !this.#accepts(source)) return;
    if (!this.#paging.add(record)) return;
    // The row a keyboard user is on (or last was on) moved down one: the roving tab stop
    // moves with it, so focus and Tab stay on the same file.
    if (this._active > 0 || this.matches(':focus-within')) this._active++;
    this.#announcer.say(this.texts.announceAdded(record.name));
  };

  #accepts(uploader: HTMLElement): boolean {
    if (this.htmlFor) {
      const root = this.getRootNode() as Document | ShadowRoot;
      return root.getElementById?.(this.htmlFor) === uploader;
    }
    // Without `for`: any uploader on the page that writes to the same project.
    const candidate = uploader as HTMLElement & { endpoint?: string; apiKey?: string };
    return (
      uploader.localName === 'file-uploader' &&
      candidate.endpoint === this.endpoint &&
      candidate.apiKey === this.apiKey
    );
  }

  /**
   * Loads the next page when the end of the list comes near the viewport. The footer is
   * observed afresh after every page: if it is still in view (a short page on a tall
   * screen), the observer says so at once and the next page follows.
   */
  #watchEnd(): void {
    const sentinel = this.renderRoot.querySelector('.footer');
    if (sentinel === this.#observed && this.#seenFiles === this.#paging.files.length) return;
    this.#seenFiles = this.#paging.files.length;
    this.#observer ??= new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting) && this.#paging.state === 'ready') {
          void this.#paging.loadMore();
        }
      },
      { rootMargin: '0px 0px 600px 0px' },
    );
    if (this.#observed) this.#observer.unobserve(this.#observed);
    if (sentinel) this.#observer.observe(sentinel);
    this.#observed = sentinel;
  }

  async #copy(file: FileRecord): Promise<void> {
    let ok = true;
    try {
      // Offered only for a file with a URL (a private file has none).
      await navigator.clipboard.writeText(file.url as string);
    } catch {
      ok = false;
    }
    this._copied = { id: file.id, ok };
    this.#announcer.say(ok ? this.texts.announceCopied(file.name) : this.texts.copyFailed);
    if (this.#copiedTimer) clearTimeout(this.#copiedTimer);
    this.#copiedTimer = setTimeout(() => {
      this._copied = null;
    }, COPIED_FOR_MS);
  }

  #select(file: FileRecord): void {
    emit(this, 'file-select', { file });
  }

  #rows(): HTMLElement[] {
    return [...this.renderRoot.querySelectorAll<HTMLElement>('.item')];
  }

  #focusRow(index: number): void {
    const rows = this.#rows();
    if (rows.length === 0) return;
    this._active = Math.max(0, Math.min(rows.length - 1, index));
    rows[this._active]?.focus();
  }

  #onKeyDown = (event: KeyboardEvent): void => {
    const row = (event.target as HTMLElement).closest?.('.item');
    const rows = this.#rows();
    const index = row ? rows.indexOf(row as HTMLElement) : this._active;
    const moves: Record<string, number> = {
      ArrowDown: index + 1,
      ArrowUp: index - 1,
      Home: 0,
      End: rows.length - 1,
    };
    const target = moves[event.key];
    if (target !== undefined) {
      event.preventDefault();
      this.#focusRow(target);
      // Reaching the last row asks for the next page, for keyboard users who never scroll.
      if (target >= rows.length - 1) void this.#paging.loadMore();
      return;
    }
    if (event.key === 'Enter' && event.target === row) {
      const file = this.#paging.files[index];
      if (file) this.#select(file);
    }
  };

  #onRowClick(event: MouseEvent, file: FileRecord, index: number): void {
    this._active = index;
    // A click on the link or the copy button does its own thing.
    if ((event.target as HTMLElement).closest('a, button')) return;
    this.#select(file);
  }

  /** Texts, language and time are worked out once per render, not once per row. */
  #renderItem(file: FileRecord, index: number, t: FileListStrings, locale: string, now: number) {
    const active = index === this._active;
    const ready = file.status === 'ready';
    const when =
      now - file.createdAt < RELATIVE_FOR_MS
        ? formatRelative(file.createdAt, now, locale)
        : formatDate(file.createdAt, locale);
    const copied = this._copied?.id === file.id ? this._copied : null;
    // A private file has no URL (`url: null`): its name without a link, no thumbnail (it
    // would only be a broken image) and nothing to copy.
    const url = ready && file.url;
    // An image the CDN can resize is fetched at the thumbnail's size for this screen (its
    // 2.5rem, 40 px, times the pixel ratio; the CDN rounds up its ladder), in the best
    // format the browser takes: a 50-photo page downloads thumbnails, not 200 MB of photos.
    const side = Math.ceil(40 * devicePixelRatio);
    // A file with a placeholder (an image the CDN resizes) is drawn by the placeholders'
    // chunk, over its icon: the whole image's shape at once, then its thumbnail. Without
    // the chunk (offline, or until it arrives) the row shows the icon.
    const image =
      url &&
      file.mime.startsWith('image/') &&
      !file.placeholder &&
      (VARIANT_TYPES.test(file.mime) ? `${url}?w=${side}&h=${side}&fit=cover&format=auto` : url);
    if (file.placeholder) {
      this.#placeholdersLoading ??= import('./placeholders.js').then((chunk) => {
        this.#drawPlaceholder = chunk.default;
        this.requestUpdate();
      });
    }
    return html`
      <div part="item" class="item" role="listitem" tabindex=${active ? 0 : -1} data-status=${file.status}
        @click=${(event: MouseEvent) => this.#onRowClick(event, file, index)} @focus=${() => {
          this._active = index;
        }}>
        <span part="thumbnail" class="thumbnail" aria-hidden="true">
          ${image ? html`<img src=${image} alt="" loading="lazy" decoding="async" @error=${hideBrokenImage} />` : nothing}${fileIcon}${this.#drawPlaceholder?.(file, url)}
        </span>
        <span class="info">
          <span part="name" class="name" dir="auto" title=${file.name}>
            ${
              url
                ? html`<a part="link" href=${url} target="_blank" rel="noopener noreferrer"
                    tabindex=${active ? 0 : -1} aria-label=${t.openFile(file.name)}>${file.name}</a>`
                : ready
                  ? file.name
                  : html`${file.name} <span class="badge">${t.pending}</span>`
            }
          </span>
          <span part="meta" class="meta">
            ${formatBytes(file.size, locale)} · ${file.mime.split(';')[0]} ·
            <time datetime=${new Date(file.createdAt).toISOString()} title=${formatDateTime(file.createdAt, locale)}
              >${t.uploadedAt(when)}</time>
          </span>
        </span>
        ${
          url
            ? html`<button part="copy-button" class="copy" type="button" tabindex=${active ? 0 : -1}
                @click=${() => this.#copy(file)}>${copied ? (copied.ok ? t.copied : t.copyFailed) : t.copyLink}<span
                  class="visually-hidden">${t.copyLinkTarget(file.name)}</span></button>`
            : nothing
        }
      </div>
    `;
  }

  #renderSkeleton() {
    return html`<ul part="list" aria-hidden="true" class="skeleton">
      ${[0, 1, 2].map(
        () => html`<li class="item"><span class="thumbnail"></span>
          <span class="info"><span class="line"></span><span class="line short"></span></span></li>`,
      )}
    </ul>`;
  }

  #renderFailure(failure: Pick<FileListFailure, 'code' | 'message' | 'details'>, retry: boolean) {
    return html`<div part="error" class="message error" role="alert">
      <p class="title">${this.texts.errorTitle}</p>
      <p class="detail">${failure.message} <span class="code">(${failureDetails.of(failure)})</span></p>
      ${retry ? html`<button class="retry" type="button" @click=${() => this.#paging.loadMore()}>${this.texts.retry}</button>` : nothing}
    </div>`;
  }

  #footer() {
    const t = this.texts;
    const paging = this.#paging;
    let content: unknown = nothing;
    if (paging.state === 'loading') content = t.loadingMore;
    else if (paging.state === 'error' && paging.error) {
      const failure = this.#describe(paging.error);
      content = html`<span class="error"><span class="detail">${failure.message}</span></span>
        <button class="retry" type="button" @click=${() => paging.loadMore()}>${t.retry}</button>`;
    } else if (paging.hasMore) {
      content = html`<button part="load-more" class="more" type="button" @click=${() => paging.loadMore()}>${t.loadMore}</button>`;
    } else {
      const count = paging.files.length;
      content = t.end(formatCount(count, this.locale), pluralForm(count, this.locale));
    }
    return html`<div part="footer" class="footer">${content}</div>`;
  }

  override render() {
    const t = this.texts;
    const paging = this.#paging;
    const files = paging.files;
    let body: unknown;
    if (this.#localFailure) {
      const code = CONNECTION_PROBLEM_CODES[this.#localFailure];
      const message = t.errors[this.#localFailure](failureContext({ code }));
      body = this.#renderFailure({ code, message, details: {} }, false);
    } else if (files.length === 0 && paging.state === 'error' && paging.error) {
      body = this.#renderFailure(this.#describe(paging.error), true);
    } else if (files.length === 0 && paging.state !== 'ready') {
      body = html`${this.#renderSkeleton()}<p class="visually-hidden">${t.loading}</p>`;
    } else if (files.length === 0) {
      body = html`<div part="empty" class="message"><p class="title">${t.empty}</p><p class="hint">${t.emptyHint}</p></div>`;
    } else {
      const locale = this.locale;
      const now = Date.now();
      body = html`
        <div part="list" class="list" role="list" aria-label=${t.listLabel} @keydown=${this.#onKeyDown}>
          ${repeat(
            this.#groups.group(files),
            (group) => group.key,
            (group) =>
              html`<div class="group">${repeat(
                group.items,
                (file) => file.id,
                (file, index) => this.#renderItem(file, group.start + index, t, locale, now),
              )}</div>`,
          )}
        </div>
        ${this.#footer()}
      `;
    }
    return html`
      <div part="base" class="base" dir=${t.$dir} aria-busy=${paging.state === 'loading' ? 'true' : 'false'}>${body}</div>
      <div class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
    `;
  }
}
