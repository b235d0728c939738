/**
 * `crop-aspect`: the crop box's shapes, space-separated: `free` (any shape) or a ratio
 * `width:height` of positive numbers (`1:1`, `4:3`, `16:9`, `1.91:1`). One fixes the box;
 * several let the person pick, the first chosen at first. Unset, empty or nothing valid:
 * free. A word that is neither is left out (and said in the console), so a typo does not
 * take the editor away.
 */

export interface AspectChoice {
  /** As written: `free`, `16:9`; the words a person sees for it. */
  label: string;
  /** Width over height; null: free. */
  ratio: number | null;
}

const FREE: AspectChoice = { label: 'free', ratio: null };
const RATIO = /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/;

export function parseCropAspect(value: string | null | undefined): AspectChoice[] {
  const choices: AspectChoice[] = [];
  for (const word of (value ?? '').trim().split(/\s+/)) {
    if (!word) continue;
    const choice = parseOne(word);
    if (!choice) {
      console.warn(`<file-uploader>: crop-aspect "${word}" is neither "free" nor width:height.`);
      continue;
    }
    if (!choices.some((known) => known.ratio === choice.ratio)) choices.push(choice);
  }
  return choices.length > 0 ? choices : [FREE];
}

function parseOne(word: string): AspectChoice | null {
  if (word.toLowerCase() === 'free') return FREE;
  const match = RATIO.exec(word);
  if (!match) return null;
  const ratio = Number(match[1]) / Number(match[2]);
  return Number.isFinite(ratio) && ratio > 0 ? { label: word, ratio } : null;
}
