import type { ReactiveElement } from 'lit';
import { en } from './en.js';
import { localeOf } from './format.js';
import type { Translation } from './translation.js';

/**
 * Which words an element speaks: the translation for its nearest `lang` (the element, an
 * ancestor, `<html lang>`), found as `pt-BR`, then any `pt`, then English. Languages are
 * registered (a page imports `filehost/locales/de` and registers it; the script-tag bundle
 * fetches the page's own on use), and a `lang` changed at run time redraws every element:
 * one MutationObserver for the whole document, not one per element.
 */

const translations = new Map<string, Translation>([['en', en]]);
const hosts = new Set<ReactiveElement>();
let observer: MutationObserver | undefined;
let loader: ((lang: string) => Promise<unknown> | undefined) | undefined;
const asked = new Set<string>();
/** Languages on their way from the loader: an element in one waits rather than flash English. */
const fetching = new Set<string>();
/** How long an element waits for its language (a slow or failing fetch): then English. */
const LANGUAGE_WAIT_MS = 1500;

/**
 * Makes languages available to every element, and redraws them. A regional one also serves
 * its language until that is registered itself (`pt-BR` serves a page in `pt` or `pt-PT`).
 */
export function registerTranslation(...list: Translation[]): void {
  for (const translation of list) {
    const code = translation.$code.toLowerCase();
    translations.set(code, translation);
    const base = baseOf(code);
    if (!translations.has(base)) translations.set(base, translation);
  }
  redraw();
}

/** The language of a tag, lower case: `pt` for `pt-BR`. */
export function baseOf(tag: string): string {
  return tag.toLowerCase().split('-')[0] ?? '';
}

/**
 * How a language not registered yet is fetched (the script-tag bundle's: its chunk beside
 * it); asked once per language, it registers what it finds, and answers the fetch (or
 * nothing, for a language it does not have).
 */
export function setTranslationLoader(load: (lang: string) => Promise<unknown> | undefined): void {
  loader = load;
}

/**
 * The translation for a language tag: the tag's own (`pt-BR`), else its language's (`pt`),
 * else English, which it then asks the loader (once per tag) to fetch.
 */
export function translationFor(lang: string): Translation {
  const code = lang.toLowerCase();
  const found = translations.get(code) ?? translations.get(baseOf(code));
  if (!found && loader && !asked.has(code)) {
    asked.add(code);
    const loading = loader(code);
    if (loading) {
      fetching.add(code);
      const settle = () => fetching.delete(code) && redraw();
      loading.then(settle, settle);
      setTimeout(settle, LANGUAGE_WAIT_MS);
    }
  }
  return found ?? en;
}

const redraw = () => {
  for (const host of hosts) host.requestUpdate();
};

/**
 * Redraws the element whenever a `lang` attribute changes anywhere in the document (or a
 * language is registered), through the one observer all connected elements share.
 */
export function followLang(host: ReactiveElement): void {
  host.addController({
    // Hidden (its place kept) while its language is on its way, not shown in English first.
    hostUpdate() {
      const lang = localeOf(host);
      translationFor(lang);
      host.toggleAttribute('translating', fetching.has(lang.toLowerCase()));
    },
    hostConnected() {
      // Made on the first connection (not at import: no document on a server) and kept: with
      // no element connected it has nothing to redraw and costs nothing.
      if (!observer) {
        observer = new MutationObserver(redraw);
        observer.observe(document.documentElement, { attributeFilter: ['lang'], subtree: true });
      }
      hosts.add(host);
    },
    hostDisconnected() {
      hosts.delete(host);
    },
  });
}

/** An element's texts: its part of a translation, the shared failure wording, its `$dir`. */
export type TextsOf<Part> = Part & Pick<Translation, 'errors' | '$dir'>;

/** What a page may lay over an element's texts (`strings`). */
export type Overrides<Part> = Partial<Part & { errors: Partial<Translation['errors']> }>;

/** An element's texts: its part of `translation` with the page's `strings` laid over it. */
export function textsWith<Key extends 'uploader' | 'list'>(
  translation: Translation,
  key: Key,
  strings: Overrides<Translation[Key]>,
): TextsOf<Translation[Key]> {
  return {
    ...translation[key],
    $dir: translation.$dir,
    ...strings,
    errors: { ...translation.errors, ...strings.errors },
  } as TextsOf<Translation[Key]>;
}
