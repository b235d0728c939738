import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced code block of a Markdown file, its indentation (a block inside a list) removed. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository's root. */
  file: string;
  /** 1-based line of the block's first line of code (the line after the opening fence). */
  line: number;
  /** The fence's language (`ts`, `tsx`, `sh`, …), empty when none. */
  language: string;
  /** What follows the language on the fence line (`fragment`), trimmed. */
  flags: string;
  /** The heading (any level) the block sits under, without its `#`s; empty above the first. */
  section: string;
  text: string;
}

/** The documents a newcomer reads: the README and every file of docs/. */
export function documentFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every fenced code block of `file` (relative to `root`), in order. */
export function codeBlocks(root: string, file: string): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  for (let index = 0; index < lines.length; index++) {
    const opening = /^( *)(`{3,})([\w-]*)(.*)$/.exec(lines[index] ?? '');
    if (!opening) {
      const heading = /^#+ (.*)$/.exec(lines[index] ?? '');
      if (heading) section = heading[1] ?? '';
      continue;
    }
    const indent = opening[1] ?? '';
    const fence = `${indent}${opening[2] ?? '```'}`;
    const body: string[] = [];
    let end = index + 1;
    while (end < lines.length && (lines[end] ?? '').trimEnd() !== fence) {
      const line = lines[end] ?? '';
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
      end++;
    }
    if (end >= lines.length) throw new Error(`${file}:${index + 1}: a code block is never closed`);
    blocks.push({
      file,
      line: index + 2,
      language: opening[3] ?? '',
      flags: (opening[4] ?? '').trim(),
      section,
      text: body.join('\n'),
    });
    index = end;
  }
  return blocks;
}
