import { type Meta, RestrictionError, type Uppy } from '@uppy/core';
import { formatBytes, formatCount, pluralForm } from '../shared/format.js';
import type { FailureContext } from '../shared/translation.js';
import {
  type FailureWording,
  failureContext,
  localFailure,
  type RejectionCode,
} from './failure.js';
import type { UploaderSettings } from './file-view.js';

/**
 * Why Uppy's restrictions refused a file, as the rule it broke in the page's words: empty,
 * too large, already in the list, one too many, or of a type the uploader does not accept.
 */
export function rejectionOf(
  file: File,
  error: unknown,
  uppy: Uppy<Meta, Record<string, unknown>>,
  settings: Pick<UploaderSettings, 'maxFileSize' | 'maxFiles' | 'accept'>,
): FailureWording {
  const { maxFileSize, maxFiles, accept } = settings;
  if (file.size === 0) return rejection('empty_body');
  if (maxFileSize !== null && file.size > maxFileSize) {
    return rejection('too_large', (locale) => ({ limit: formatBytes(maxFileSize, locale) }));
  }
  if (isDuplicate(error, uppy)) return rejection('duplicate_file');
  if (maxFiles !== null && uppy.getFiles().length >= maxFiles) {
    return rejection('too_many_files', (locale) => ({
      max: formatCount(maxFiles, locale),
      form: pluralForm(maxFiles, locale),
    }));
  }
  const accepted = (accept ?? []).join(', ');
  return rejection('type_not_allowed', () => ({ accept: accepted }));
}

/**
 * Uppy refuses a file it already holds before any other rule, naming that file in the
 * error; told apart by Uppy's state, not by its message (the script-tag bundle carries
 * none of Uppy's texts).
 */
function isDuplicate(error: unknown, uppy: Uppy<Meta, Record<string, unknown>>): boolean {
  const id = error instanceof RestrictionError ? error.file?.id : undefined;
  return id !== undefined && uppy.checkIfFileAlreadyExists(id);
}

/**
 * A file refused by the checks made before sending, with the rule it broke; `context` gives
 * what the words mention (a size, a count), written for the language.
 */
function rejection(
  code: RejectionCode | 'too_large' | 'empty_body',
  context: (locale: string) => Partial<FailureContext> = () => ({}),
): FailureWording {
  return (strings, locale) =>
    localFailure(
      code,
      'validate',
      strings.errors[code](failureContext({ code, ...context(locale) })),
    );
}
