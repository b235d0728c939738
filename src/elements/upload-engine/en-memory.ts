import { en } from '../shared/en.js';
import type { MemoryText, UploaderTexts } from '../shared/translation.js';

/**
 * The English words only uploads remembered across a reload show (an upload cut off before
 * the page was loaded), kept with the memory's chunk (`remembered-uploads.ts`), which lists
 * those uploads: `fillMemory()`, called as the chunk loads, adds them to the English
 * translation. Other languages ship whole.
 */
const uploader: Pick<UploaderTexts, MemoryText> = {
  interrupted: 'Interrupted. Choose this file again to carry on where it stopped.',
};

export function fillMemory(): void {
  Object.assign(en.uploader, uploader);
}
