import type { FailureText } from '../shared/failure-text.js';

/**
 * Every text `<file-list>` shows or announces. Set the `strings` property to replace any
 * of them; numbers, sizes and dates arrive formatted for the page's language.
 */
export interface FileListStrings {
  listLabel: string;
  loading: string;
  empty: string;
  emptyHint: string;
  loadMore: string;
  loadingMore: string;
  end: (count: string) => string;
  retry: string;
  copyLink: string;
  /** Read after the button's text by screen readers (hidden on screen): which file. */
  copyLinkTarget: (name: string) => string;
  copied: string;
  copyFailed: string;
  pending: string;
  openFile: (name: string) => string;
  uploadedAt: (when: string) => string;
  announceLoaded: (count: string) => string;
  announceAdded: (name: string) => string;
  announceCopied: (name: string) => string;
  errorTitle: string;
  /** The same shape as `<file-uploader>`'s: each text gets a `FailureContext`. */
  errors: Record<
    | 'origin_not_allowed'
    | 'invalid_key'
    | 'missing_auth'
    | 'secret_key'
    | 'no_endpoint'
    | 'rate_limited'
    | 'network_error'
    | 'unexpected',
    FailureText
  >;
}

export const defaultListStrings: FileListStrings = {
  listLabel: 'Uploaded files',
  loading: 'Loading files…',
  empty: 'No files yet.',
  emptyHint: 'Files you upload appear here, newest first.',
  loadMore: 'Load more',
  loadingMore: 'Loading more…',
  end: (count) => (count === '1' ? 'That is the only file.' : `That is all ${count} files.`),
  retry: 'Try again',
  copyLink: 'Copy link',
  copyLinkTarget: (name) => `: ${name}`,
  copied: 'Copied',
  copyFailed: 'Copy failed',
  pending: 'Uploading…',
  openFile: (name) => `${name} (opens in a new tab)`,
  uploadedAt: (when) => `Uploaded ${when}`,
  announceLoaded: (count) => `${count} files shown.`,
  announceAdded: (name) => `${name} added to the list.`,
  announceCopied: (name) => `Link to ${name} copied.`,
  errorTitle: 'The files could not be loaded.',
  errors: {
    origin_not_allowed: ({ origin }) =>
      `This page (${origin}) may not read files with this key. The key's list of allowed origins must include ${origin}.`,
    invalid_key: () => 'The key was not recognized. Check the api-key setting of this list.',
    missing_auth: () => 'No key is set. Give the list a publishable key (api-key).',
    secret_key: () =>
      'This list was given a secret key, which must never be in a web page. Use the publishable key (pk_live_…).',
    no_endpoint: () => 'No address is set. Give the list the API address (endpoint).',
    rate_limited: ({ seconds }) =>
      `Too many requests in a short time. Try again in ${seconds} seconds.`,
    network_error: () => 'The service could not be reached. Check the connection and try again.',
    unexpected: ({ code, message }) => `Something went wrong (${code}). ${message}`.trim(),
  },
};

export function mergeListStrings(overrides: Partial<FileListStrings> | undefined): FileListStrings {
  if (!overrides) return defaultListStrings;
  return {
    ...defaultListStrings,
    ...overrides,
    errors: { ...defaultListStrings.errors, ...overrides.errors },
  };
}
