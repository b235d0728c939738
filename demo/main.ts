/**
 * The demo: <file-uploader> against the local service, and a paged list of the project's
 * files (which <file-list> replaces when it lands).
 */
import '../src/index.js';
import type { ApiErrorBody } from '../src/api/errors.js';
import type { FileListResponse, FileRecord } from '../src/api/types.js';

const apiUrl = import.meta.env.VITE_FILEHOST_API_URL as string;
const key = import.meta.env.VITE_FILEHOST_PUBLISHABLE_KEY as string;

const uploader = document.querySelector('file-uploader');
const list = document.querySelector<HTMLUListElement>('#files');
const more = document.querySelector<HTMLButtonElement>('#more');
if (!uploader || !list || !more) throw new Error('demo markup is missing');
uploader.endpoint = apiUrl;
uploader.apiKey = key;

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function formatSize(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${sizeFormat.format(value)} ${units[unit]}`;
}

async function readError(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as ApiErrorBody;
    return `${body.error.message} (${body.error.code})`;
  } catch {
    return `The service answered ${response.status}.`;
  }
}

function row(file: FileRecord): HTMLLIElement {
  const item = document.createElement('li');
  const name = document.createElement(file.status === 'ready' ? 'a' : 'span');
  name.textContent = file.name;
  if (name instanceof HTMLAnchorElement) {
    name.href = file.url;
    name.target = '_blank';
    name.rel = 'noopener noreferrer';
  }
  const meta = document.createElement('span');
  meta.className = 'meta';
  meta.textContent = `${formatSize(file.size)} · ${file.status === 'ready' ? dateFormat.format(file.createdAt) : 'uploading…'}`;
  item.append(name, meta);
  return item;
}

let cursor: string | null = null;

async function loadPage(reset: boolean): Promise<void> {
  const query = new URLSearchParams({ limit: '10' });
  if (!reset && cursor) query.set('cursor', cursor);
  const response = await fetch(`${apiUrl}/v1/files?${query}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  if (!response.ok) {
    const error = document.createElement('li');
    error.className = 'empty';
    error.textContent = `Could not list files: ${await readError(response)}`;
    list!.replaceChildren(error);
    return;
  }
  const page = (await response.json()) as FileListResponse;
  if (reset) list!.replaceChildren();
  list!.append(...page.files.map(row));
  if (list!.children.length === 0) {
    const empty = document.createElement('li');
    empty.className = 'empty';
    empty.textContent = 'No files yet. Upload one above.';
    list!.append(empty);
  }
  cursor = page.nextCursor;
  more!.hidden = cursor === null;
}

uploader.addEventListener('upload-complete', () => loadPage(true));

more.addEventListener('click', () => loadPage(false));
void loadPage(true);
