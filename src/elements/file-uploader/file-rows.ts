import { html, nothing, type TemplateResult } from 'lit';
import { failureDetails } from '../shared/failure-details.js';
import { formatBytes, formatCount, formatPercent, pluralForm } from '../shared/format.js';
import { fileIcon } from '../shared/icons.js';
import { hideBrokenImage } from '../shared/images.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';
import type { FileView } from '../upload-engine/file-view.js';

/**
 * How `<file-uploader>` draws its list: a row per file and the summary above them. The
 * buttons call the element's own commands (`FileCommands`, which the element is).
 */

/** The element's commands the rows' buttons call. */
export interface FileCommands {
  upload(): void;
  retry(id: string): void;
  pauseFile(id: string): void;
  resumeFile(id: string): void;
  removeFile(id: string): void;
  pauseAllFiles(): void;
  resumeAllFiles(): void;
  cancelAll(): void;
}

function statusText(file: FileView, t: FileUploaderStrings, locale: string): string {
  switch (file.status) {
    case 'uploading':
      return `${t.uploading(formatPercent(file.fraction, locale))}${file.pace ? ` · ${file.pace}` : ''}`;
    case 'retrying': {
      const seconds = Math.max(1, Math.ceil(((file.retryAt ?? 0) - Date.now()) / 1000));
      return t.retrying(formatCount(seconds, locale), pluralForm(seconds, locale));
    }
    default: {
      // The other states are worded by the text of their name (`queued`, `done`…), and
      // `failed` and `rejected` by none (their error says it): one lookup, where a case for
      // each cost the first load bytes.
      const words: unknown = (t as unknown as Record<string, unknown>)[file.status];
      return typeof words === 'string' ? words : '';
    }
  }
}

/** One file's row: its name (a link once uploaded), size, status, progress, error and actions. */
export function renderFile(
  file: FileView,
  t: FileUploaderStrings,
  locale: string,
  commands: FileCommands,
): TemplateResult {
  const finished = ['done', 'failed', 'rejected', 'interrupted'].includes(file.status);
  const showBar = !['rejected', 'failed', 'queued', 'interrupted'].includes(file.status);
  const status = statusText(file, t, locale);
  return html`
    <li part="file" class="file" data-status=${file.status}>
      <span part="thumbnail" class="thumbnail" aria-hidden="true">
        ${file.thumbnail ? html`<img src=${file.thumbnail} alt="" @error=${hideBrokenImage} />` : nothing}${fileIcon}
      </span>
      <div class="info">
        <span part="name" class="name" title=${file.name}>
          ${
            // A private file has no URL (`url: null`): its name, without a link.
            file.record?.url
              ? html`<a href=${file.record.url} target="_blank" rel="noopener noreferrer"
                  aria-label=${t.openFile(file.name)}>${file.name}</a>`
              : file.name
          }
        </span>
        <span class="meta">
          ${formatBytes(file.size, locale)}${status ? html` · <span class="state">${status}</span>` : nothing}
        </span>
        ${
          showBar
            ? html`<div part="progress" class="bar" role="progressbar" aria-label=${file.name}
                aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(file.fraction * 100)}
                style="--fraction: ${file.fraction}"><span></span></div>`
            : nothing
        }
        ${
          file.failure
            ? html`<p part="error" class="error">
                ${file.failure.message} <span class="code">(${failureDetails.of(file.failure)})</span>
              </p>`
            : nothing
        }
      </div>
      <div class="actions">
        ${
          file.status === 'failed' && !file.refused
            ? html`<button part="action" class="action" type="button" aria-label=${t.retryLabel(file.name)}
                @click=${() => commands.retry(file.id)}>${t.retry}</button>`
            : nothing
        }${
          isPausable(file)
            ? html`<button part="action" class="action" type="button" aria-label=${t.pauseLabel(file.name)}
                @click=${() => commands.pauseFile(file.id)}>${t.pauseUpload}</button>`
            : file.status === 'paused'
              ? html`<button part="action" class="action" type="button" aria-label=${t.resumeLabel(file.name)}
                @click=${() => commands.resumeFile(file.id)}>${t.resumeUpload}</button>`
              : nothing
        }
        <button part="action" class="action" type="button"
          aria-label=${finished ? t.removeLabel(file.name) : t.cancelLabel(file.name)}
          @click=${() => commands.removeFile(file.id)}>${finished ? t.remove : t.cancel}</button>
      </div>
    </li>
  `;
}

/** The line above the list: files done of all, overall progress, and the commands for all. */
export function renderSummary(
  files: FileView[],
  t: FileUploaderStrings,
  locale: string,
  uploading: boolean,
  commands: FileCommands,
): TemplateResult {
  const counted = files.filter((file) => !['rejected', 'interrupted'].includes(file.status));
  const moving = counted.filter((file) => file.status !== 'failed');
  const size = moving.reduce((sum, file) => sum + file.size, 0);
  const sent = moving.reduce((sum, file) => sum + file.bytesUploaded, 0);
  const fraction = size > 0 ? sent / size : 0;
  const done = files.filter((file) => file.status === 'done').length;
  const queued = files.some((file) => file.status === 'queued');
  const total = t.total(
    formatCount(done, locale),
    formatCount(counted.length, locale),
    formatPercent(fraction, locale),
  );
  return html`
    <div part="total" class="summary">
      <span>${total}</span>
      <div part="progress" class="bar" role="progressbar" aria-label=${total}
        aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.round(fraction * 100)}
        style="--fraction: ${fraction}"><span></span></div>
      ${
        queued
          ? html`<button part="action" class="action primary" type="button" @click=${() => commands.upload()}>${t.upload}</button>`
          : nothing
      }
      ${
        files.some(isPausable)
          ? html`<button part="action" class="action" type="button" @click=${() => commands.pauseAllFiles()}>${t.pauseAllUploads}</button>`
          : files.some((file) => file.status === 'paused')
            ? html`<button part="action" class="action" type="button" @click=${() => commands.resumeAllFiles()}>${t.resumeAllUploads}</button>`
            : nothing
      }${
        uploading
          ? html`<button part="action" class="action" type="button" @click=${() => commands.cancelAll()}>${t.cancelAll}</button>`
          : nothing
      }
    </div>
  `;
}

/** A file on its way that can be paused (one being completed is not stopped). */
export function isPausable(file: FileView): boolean {
  return (
    ['uploading', 'preparing', 'retrying'].includes(file.status) && !file.id.startsWith('waiting-')
  );
}
