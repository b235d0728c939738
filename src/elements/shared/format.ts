/**
 * Numbers, sizes and dates in the page's language: the nearest `lang` attribute, then the
 * document's, then the browser's. Intl formatters are costly to build (a list of thousands
 * of rows built them per row on every render: seconds), so each is built once per locale
 * and kept.
 */
export function localeOf(element: Element): string {
  // Intl throws on a tag it cannot read, and pages and browsers do give such tags
  // (`lang="en_US"`; WebKit says "C" under a POSIX locale): English then.
  try {
    // The tag in its canonical form (an empty one throws, and is English too).
    return `${new Intl.Locale(
      element.closest<HTMLElement>('[lang]')?.lang ||
        document.documentElement.lang ||
        navigator.language,
    )}`;
  } catch {
    return 'en';
  }
}

const cache = new Map<string, unknown>();

function memo<T>(key: string, make: () => T): T {
  let value = cache.get(key) as T | undefined;
  if (value === undefined) {
    value = make();
    cache.set(key, value);
  }
  return value;
}

const UNITS = ['byte', 'kilobyte', 'megabyte', 'gigabyte', 'terabyte'] as const;

/**
 * Decimal units (kB, MB, GB), as file managers and the plan limits speak of them; a speed
 * (MB/s) with `perSecond`.
 */
export function formatBytes(bytes: number, locale: string, perSecond = false): string {
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  // "B" reads better than Intl's "byte" and is the same in every language.
  if (unit === 0) return `${formatCount(value, locale)} B${perSecond ? '/s' : ''}`;
  const digits = value < 10 ? 1 : 0;
  return memo(
    `bytes ${locale} ${unit} ${digits} ${perSecond}`,
    () =>
      new Intl.NumberFormat(locale, {
        style: 'unit',
        unit: `${UNITS[unit]}${perSecond ? '-per-second' : ''}`,
        unitDisplay: 'short',
        maximumFractionDigits: digits,
      }),
  ).format(value);
}

export function formatPercent(fraction: number, locale: string): string {
  return memo(
    `percent ${locale}`,
    () => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 }),
  ).format(Math.max(0, Math.min(1, fraction)));
}

export function formatCount(count: number, locale: string): string {
  return memo(`count ${locale}`, () => new Intl.NumberFormat(locale)).format(count);
}

/** The plural category of a count in a language (Arabic has six, Polish four). */
export function pluralForm(count: number, locale: string): Intl.LDMLPluralRule {
  return memo(`plural ${locale}`, () => new Intl.PluralRules(locale)).select(count);
}

/** "in 30 seconds", "2 minutes ago": relative time for the near past and future. */
export function formatRelative(timestamp: number, now: number, locale: string): string {
  const seconds = Math.round((timestamp - now) / 1000);
  const format = memo(
    `relative ${locale}`,
    () => new Intl.RelativeTimeFormat(locale, { numeric: 'auto' }),
  );
  const abs = Math.abs(seconds);
  if (abs < 60) return format.format(seconds, 'second');
  if (abs < 3600) return format.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return format.format(Math.round(seconds / 3600), 'hour');
  return format.format(Math.round(seconds / 86_400), 'day');
}

export function formatDateTime(timestamp: number, locale: string): string {
  return memo(
    `datetime ${locale}`,
    () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }),
  ).format(timestamp);
}

export function formatDate(timestamp: number, locale: string): string {
  return memo(
    `date ${locale}`,
    () => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }),
  ).format(timestamp);
}
