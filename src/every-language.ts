import type { Translation } from './elements/shared/translation.js';
import ar from './locales/ar.js';
import de from './locales/de.js';
import es from './locales/es.js';
import fr from './locales/fr.js';
import he from './locales/he.js';
import it from './locales/it.js';
import ja from './locales/ja.js';
import ko from './locales/ko.js';
import nl from './locales/nl.js';
import pl from './locales/pl.js';
import ptBR from './locales/pt-BR.js';
import tr from './locales/tr.js';
import uk from './locales/uk.js';
import zhCN from './locales/zh-CN.js';

/**
 * Every language shipped besides English (`SHIPPED_LOCALES`), for the one-file bundle: a page
 * that copies `filehost.bundle.js` alone has no `locales/` beside it to fetch its own from.
 */
export const EVERY_LANGUAGE: readonly Translation[] = [
  ar,
  de,
  es,
  fr,
  he,
  it,
  ja,
  ko,
  nl,
  pl,
  ptBR,
  tr,
  uk,
  zhCN,
];
