import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it } from 'node:test';

/**
 * docs/elements.md, linked from the README as "both elements in full", against the custom
 * elements manifest the analyzer makes from the sources (#53 point 5): for each element, its
 * attribute table names exactly the manifest's attributes (with the property's name where
 * it differs: `api-key` / `apiKey`), its property table exactly the public properties that
 * have no attribute, its event table exactly the events, and its text every public method.
 */
const ROOT = resolve(import.meta.dirname, '../..');

interface Declaration {
  tagName?: string;
  attributes?: { name: string; fieldName?: string }[];
  members?: {
    kind: string;
    name: string;
    privacy?: string;
    static?: boolean;
  }[];
  events?: { name: string }[];
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8')) as {
  modules: { declarations?: Declaration[] }[];
};
const elements = manifest.modules
  .flatMap((module) => module.declarations ?? [])
  .filter((declaration) => declaration.tagName);
const doc = readFileSync(join(ROOT, 'docs/elements.md'), 'utf8');

/** The element's section of docs/elements.md: from `## \`<tag>\`` to the next `## `. */
function sectionOf(tag: string): string {
  const start = doc.indexOf(`\n## \`<${tag}>\`\n`);
  assert.ok(start >= 0, `docs/elements.md has no section for <${tag}>`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The first cells of the section's tables whose header's first cell is `header`. */
function firstCells(section: string, header: string): string[] {
  const cells: string[] = [];
  let inTable = false;
  for (const line of section.split('\n')) {
    if (!line.startsWith('|')) {
      inTable = false;
      continue;
    }
    const first = line.split('|')[1]?.trim() ?? '';
    if (first === header) inTable = true;
    else if (inTable && !/^-+$/.test(first)) cells.push(first);
  }
  return cells;
}

/** The backticked names of a cell: `` `api-key` / `apiKey` `` → ['api-key', 'apiKey']. */
function namesIn(cell: string): string[] {
  return [...cell.matchAll(/`([\w-]+)`/g)].map((match) => match[1] ?? '');
}

describe('docs/elements.md against custom-elements.json', () => {
  it('describes the two elements the manifest has', () => {
    assert.deepEqual(elements.map((element) => element.tagName).sort(), [
      'file-list',
      'file-uploader',
    ]);
  });

  for (const element of elements) {
    const tag = element.tagName ?? '';
    const attributes = element.attributes ?? [];
    const attributeFields = new Set(attributes.map((attribute) => attribute.fieldName));
    const publicMembers = (element.members ?? []).filter(
      (member) => !member.static && (member.privacy ?? 'public') === 'public',
    );

    it(`<${tag}>: the attribute table names every attribute, with its property`, () => {
      const rows = firstCells(sectionOf(tag), 'attribute / property');
      const documented = new Map(rows.map((cell) => [namesIn(cell)[0], namesIn(cell)]));
      assert.deepEqual(
        [...documented.keys()].sort(),
        attributes.map((attribute) => attribute.name).sort(),
      );
      for (const { name, fieldName } of attributes) {
        const names = documented.get(name) ?? [];
        if (fieldName && fieldName !== name)
          assert.deepEqual(names, [name, fieldName], `\`${name}\` / \`${fieldName}\``);
      }
    });

    it(`<${tag}>: the property table names every public property without an attribute`, () => {
      const rows = firstCells(sectionOf(tag), 'property');
      const expected = publicMembers
        .filter((member) => member.kind === 'field' && !attributeFields.has(member.name))
        .map((member) => member.name)
        .sort();
      assert.deepEqual(rows.flatMap(namesIn).sort(), expected);
    });

    it(`<${tag}>: the event table names every event`, () => {
      const rows = firstCells(sectionOf(tag), 'event');
      assert.deepEqual(
        rows.flatMap(namesIn).sort(),
        (element.events ?? []).map((event) => event.name).sort(),
      );
    });

    it(`<${tag}>: every public method is named`, () => {
      const section = sectionOf(tag);
      const methods = publicMembers
        .filter((member) => member.kind === 'method' && !member.name.endsWith('Callback'))
        .map((member) => member.name);
      assert.ok(methods.length >= 2, `${tag}: ${methods.length} methods`);
      assert.deepEqual(
        methods.filter((name) => !section.includes(`\`${name}(`)),
        [],
      );
    });
  }
});
