import type { Overrides, TextsOf } from '../shared/localize.js';
import type { ListTexts } from '../shared/translation.js';

/**
 * Every text `<file-list>` shows or announces: its part of the shared `Translation` and the
 * failure wording both elements share. Set the `strings` property to replace any of them;
 * numbers, sizes and dates arrive formatted for the page's language.
 */
export type FileListStrings = TextsOf<ListTexts>;
export type FileListOverrides = Overrides<ListTexts>;
