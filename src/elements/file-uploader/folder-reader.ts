import { getDroppedFiles } from '@uppy/core/utils';
import type { TakenDrop } from './dropped.js';

/**
 * Every file of a drop, each folder in it read to the bottom by Uppy's own reader (each
 * file gets its `relativePath`). Loaded only when a folder is dropped. The reader takes a
 * `DataTransfer`; this one holds what the drop held, taken while it lasted.
 */
export function readDroppedFiles(dropped: TakenDrop): Promise<File[]> {
  const items = dropped.entries.map((entry, index) => ({
    kind: 'file',
    webkitGetAsEntry: () => entry,
    getAsFile: () => dropped.itemFiles[index] ?? null,
  }));
  return getDroppedFiles({ items, files: dropped.files } as unknown as DataTransfer);
}
