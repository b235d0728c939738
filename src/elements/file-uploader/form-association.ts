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
 * and when `required` with none uploaded, the message anchored to the browse button.
 */
export function syncForm(
  internals: ElementInternals,
  field: FormField,
  records: FileRecord[],
): void {
  const anchor = field.renderRoot.querySelector<HTMLElement>('.browse') ?? undefined;
  if (field.name) {
    const data = new FormData();
    for (const record of records)
      data.append(field.name, (field.formValue !== 'id' && record.url) || record.id);
    internals.setFormValue(records.length > 0 ? data : null);
  } else {
    internals.setFormValue(null);
  }
  if (field.uploading) {
    internals.setValidity({ customError: true }, field.texts.formUploading, anchor);
  } else if (field.required && records.length === 0) {
    internals.setValidity({ valueMissing: true }, field.texts.formRequired, anchor);
  } else {
    internals.setValidity({});
  }
}
