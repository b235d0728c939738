import type { ReactiveElement } from 'lit';
import { en } from './en.js';
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
let loader: ((lang: string) => unknown) | undefined;
const asked = new Set<string>();

/** The tag among `tags` for `lang`: the same tag, else the same language (`pt` for `pt-BR`). */
export function matchLanguage(lang: string, tags: Iterable<string>): string | undefined {
  const list = [...tags];
  const base = (tag: string) => tag.split('-')[0]?.toLowerCase();
  return (
    list.find((tag) => tag.toLowerCase() === lang.toLowerCase()) ??
    list.find((tag) => base(tag) === base(lang))
  );
}

/** Makes a language available to every element, and redraws those that speak it. */
export function registerTranslation(...list: Translation[]): void {
  for (const translation of list) translations.set(translation.$code, translation);
  redraw();
}

/**
 * How a language not registered yet is fetched (the script-tag bundle's: its chunk beside
 * it); asked once per language, it registers what it finds.
 */
export function setTranslationLoader(load: (lang: string) => unknown): void {
  loader = load;
}

/** The translation for a language tag, by the fallback above; asks the loader for it once. */
export function translationFor(lang: string): Translation {
  const tag = matchLanguage(lang, translations.keys());
  if (!tag && loader && !asked.has(lang)) {
    asked.add(lang);
    loader(lang);
  }
  return translations.get(tag ?? 'en') ?? en;
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
    hostConnected() {
      observer ??= new MutationObserver(redraw);
      if (!hosts.size) {
        observer.observe(document.documentElement, {
          attributeFilter: ['lang'],
          subtree: true,
        });
      }
      hosts.add(host);
    },
    hostDisconnected() {
      hosts.delete(host);
      if (!hosts.size) observer?.disconnect();
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
