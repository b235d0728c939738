/** Rows per group: a group is what the browser lays out, paints and hit-tests as one. */
export const GROUP_SIZE = 100;

export interface RowGroup<T> {
  key: number;
  /** Index of the group's first row in the whole list. */
  start: number;
  items: T[];
}

/**
 * Splits a long list into groups of rows for drawing. A row stays in the group it was first
 * put in: pages fill groups at the end, uploads fill groups at the top, so new rows never
 * push a row from one group into the next (which would re-create it, losing focus).
 *
 * Why groups: with each of 5,000 rows its own paint container, the browser's periodic hover
 * hit test walked 5,000 layers (20-33 ms, the longest scrolling frames); with none, a scroll
 * repainted every row. A group is the container instead: 50 of them, each repainted alone.
 */
export class RowGroups<T extends { id: string }> {
  readonly #groupOf = new Map<string, number>();
  readonly #sizes = new Map<number, number>();
  #first = 0;
  #last = -1;

  group(items: readonly T[]): RowGroup<T>[] {
    const firstKnown = items.findIndex((item) => this.#groupOf.has(item.id));
    if (firstKnown === -1) this.#clear();
    // New rows above the first known one are uploads: nearest to it first.
    for (let i = firstKnown - 1; i >= 0; i--) this.#put(items[i] as T, true);
    for (const item of items) if (!this.#groupOf.has(item.id)) this.#put(item, false);

    const groups: RowGroup<T>[] = [];
    items.forEach((item, index) => {
      const key = this.#groupOf.get(item.id) as number;
      const current = groups.at(-1);
      if (current?.key === key) current.items.push(item);
      else groups.push({ key, start: index, items: [item] });
    });
    // A list that changed in any other way (a refresh with new files in between) is
    // grouped afresh rather than drawn with one group in two places.
    if (new Set(groups.map((group) => group.key)).size !== groups.length) {
      this.#clear();
      return this.group(items);
    }
    return groups;
  }

  #put(item: T, atTop: boolean): void {
    if (this.#last < this.#first) this.#first = this.#last = 0;
    let key = atTop ? this.#first : this.#last;
    if ((this.#sizes.get(key) ?? 0) >= GROUP_SIZE) key = atTop ? --this.#first : ++this.#last;
    this.#groupOf.set(item.id, key);
    this.#sizes.set(key, (this.#sizes.get(key) ?? 0) + 1);
  }

  #clear(): void {
    this.#groupOf.clear();
    this.#sizes.clear();
    this.#first = 0;
    this.#last = -1;
  }
}
