import type { Overrides, TextsOf } from './localize.js';
import type { UploaderTexts } from './translation.js';

export type { FailureContext } from './translation.js';

/**
 * Every text the uploader shows or announces: its part of the shared `Translation` and the
 * failure wording both elements share. Set the `strings` property to replace any of them
 * (`Partial`, errors too); numbers and sizes arrive formatted.
 */
export type FileUploaderStrings = TextsOf<UploaderTexts>;
export type FileUploaderOverrides = Overrides<UploaderTexts>;
