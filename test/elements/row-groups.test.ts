import { expect } from '@open-wc/testing';
import { GROUP_SIZE, RowGroups } from '../../src/elements/file-list/row-groups.js';

const rows = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: `${prefix}${i}` }));

/** Where each row is drawn: group key per id. */
function placement(groups: ReturnType<RowGroups<{ id: string }>['group']>): Map<string, number> {
  return new Map(groups.flatMap((g) => g.items.map((item) => [item.id, g.key] as const)));
}

describe('RowGroups (how <file-list> groups its rows for drawing)', () => {
  it('fills groups of GROUP_SIZE in order, each knowing where it starts', () => {
    const groups = new RowGroups<{ id: string }>().group(rows('p', 2 * GROUP_SIZE + 20));
    expect(groups.map((g) => g.items.length)).to.deep.equal([GROUP_SIZE, GROUP_SIZE, 20]);
    expect(groups.map((g) => g.start)).to.deep.equal([0, GROUP_SIZE, 2 * GROUP_SIZE]);
    expect(new Set(groups.map((g) => g.key)).size).to.equal(3);
  });

  it('never moves a row to another group when pages arrive below or uploads above', () => {
    const grouping = new RowGroups<{ id: string }>();
    let list = rows('a', 150);
    const before = placement(grouping.group(list));
    list = [...rows('up', 3), ...list, ...rows('b', 100)];
    const groups = grouping.group(list);
    const after = placement(groups);
    for (const [id, key] of before) expect(after.get(id), id).to.equal(key);
    // The first group was full: the uploads opened one above it. The new page filled the
    // half-full last group up and opened another.
    expect(groups.map((g) => g.items.length)).to.deep.equal([3, 100, 100, 50]);
    expect(groups.flatMap((g) => g.items)).to.deep.equal(list);
  });

  it('opens a new group at the top once the first is full', () => {
    const grouping = new RowGroups<{ id: string }>();
    const list = rows('a', GROUP_SIZE);
    const [full] = grouping.group(list);
    const groups = grouping.group([{ id: 'new' }, ...list]);
    expect(groups).to.have.length(2);
    expect(groups[0]?.items).to.deep.equal([{ id: 'new' }]);
    expect(groups[1]?.key).to.equal(full?.key);
    expect(groups[1]?.start).to.equal(1);
  });

  it('groups afresh a list that changed in the middle or was replaced', () => {
    const grouping = new RowGroups<{ id: string }>();
    const list = rows('a', 250);
    grouping.group(list);
    // A refresh that found new files between known ones.
    const changed = [...list.slice(0, 120), { id: 'between' }, ...list.slice(120)];
    const groups = grouping.group(changed);
    expect(groups.flatMap((g) => g.items)).to.deep.equal(changed);
    expect(new Set(groups.map((g) => g.key)).size).to.equal(groups.length);
    // Another source altogether.
    const other = grouping.group(rows('z', 10));
    expect(other).to.have.length(1);
    expect(other[0]?.start).to.equal(0);
  });
});
