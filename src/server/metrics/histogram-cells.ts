import { Histogram, type Registry } from 'prom-client';

/**
 * One label combination's histogram: counts per bucket (not yet cumulative), sum and count.
 * Observing is a loop over the bounds and three additions: no label validation, no string
 * building, no allocation.
 */
export class HistogramCell {
  readonly #bounds: readonly number[];
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(bounds: readonly number[]) {
    this.#bounds = bounds;
    // One more than the bounds: the `+Inf` bucket.
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.#bounds;
    let index = 0;
    while (index < bounds.length && value > (bounds[index] as number)) index++;
    this.counts[index] = (this.counts[index] as number) + 1;
    this.sum += value;
    this.count++;
  }
}

type Exported = Awaited<ReturnType<Histogram<string>['get']>>;

/**
 * A prom-client histogram whose label combinations are cells a caller keeps (`cell`) and
 * observes directly. prom-client's own `labels(...).observe` validates the labels and
 * hashes them into a string on every call; on the CDN's memory path, which answers a
 * small file in tens of microseconds, that is the whole of what metrics would cost. The
 * exposition is prom-client's: the registry prints these values as it prints its own.
 */
export class CellHistogram<L extends string> extends Histogram<L> {
  readonly #name: string;
  readonly #help: string;
  readonly #bounds: readonly number[];
  readonly #cells: { labels: Record<L, string>; cell: HistogramCell }[] = [];

  constructor(options: {
    name: string;
    help: string;
    labelNames: readonly L[];
    buckets: readonly number[];
    registers: Registry[];
  }) {
    super({
      name: options.name,
      help: options.help,
      labelNames: options.labelNames,
      buckets: [...options.buckets],
      registers: options.registers,
    });
    this.#name = options.name;
    this.#help = options.help;
    this.#bounds = [...options.buckets];
  }

  /** A new cell for `labels`: made once per label combination, then observed at no cost. */
  cell(labels: Record<L, string>): HistogramCell {
    const cell = new HistogramCell(this.#bounds);
    this.#cells.push({ labels, cell });
    return cell;
  }

  /** Every cell made, with its labels (a counter of the same requests reads them). */
  get cells(): readonly { labels: Record<L, string>; cell: HistogramCell }[] {
    return this.#cells;
  }

  override async get(): Promise<Exported> {
    const values: Exported['values'] = [];
    const name = this.#name;
    for (const { labels, cell } of this.#cells) {
      let cumulative = 0;
      for (let index = 0; index <= this.#bounds.length; index++) {
        cumulative += cell.counts[index] as number;
        const le = index < this.#bounds.length ? (this.#bounds[index] as number) : '+Inf';
        values.push({
          labels: { le, ...labels },
          value: cumulative,
          metricName: `${name}_bucket`,
        } as Exported['values'][number]);
      }
      values.push({
        labels,
        value: cell.sum,
        metricName: `${name}_sum`,
      } as Exported['values'][number]);
      values.push({
        labels,
        value: cell.count,
        metricName: `${name}_count`,
      } as Exported['values'][number]);
    }
    // The shape prom-client's own `get` answers (its type also names `collect`, which the
    // registry never reads from it).
    const exported = { name, help: this.#help, type: 'histogram', values, aggregator: 'sum' };
    return exported as unknown as Exported;
  }

  /** What the registry prints (prom-client's own would print its unused label table). */
  getForPromString(): Promise<Exported> {
    return this.get();
  }
}
