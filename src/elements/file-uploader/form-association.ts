import type { FileRecord } from '../../api/types.js';
import type { FileUploaderStrings } from '../shared/uploader-strings.js';

/** What the form hears of an uploader: its field's name and value, and what makes it valid. */
export interface FormField {
  readonly name: string;
  readonly formValue: 'url' | 'id';
  readonly required: boolean;
  readonly uploading: boolean;
  readonly texts: FileUploaderStrings;
  /** Where the browse button is, which a validation message points at. */
  readonly renderRoot: ParentNode;
}

/**
 * Tells the form what the uploader holds (form-associated custom element): under `name`,
 * one entry per uploaded file (its URL, or its id; always the id of a private file, which
 * has no URL: its backend signs a link from the id); invalid while files are on their way,
 * and while images wait for Edit or Upload (`held`, with `image-editor`: they are not sent
 * unless the person says so), and when `required` with none uploaded, the message anchored
 * to the browse button.
 */
export function syncForm(
  internals: ElementInternals,
  field: FormField,
  records: FileRecord[],
  held: number,
): void {
  const t = field.texts;
  const data = new FormData();
  for (const record of records)
    data.append(field.name, (field.formValue !== 'id' && record.url) || record.id);
  internals.setFormValue(field.name && records.length > 0 ? data : null);
  // The form waits for files on their way and images waiting; else, with `required`, it
  // needs one uploaded. (With no flag set, the message is not used.)
  const wait = field.uploading ? t.formUploading : held ? t.formHeld : '';
  internals.setValidity(
    { customError: !!wait, valueMissing: !wait && field.required && records.length === 0 },
    wait || t.formRequired,
    field.renderRoot.querySelector<HTMLElement>('.browse') ?? undefined,
  );
}
