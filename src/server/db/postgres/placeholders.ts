const numbered = new Map<string, string>();

/**
 * A statement of `sql/statements.ts` as PostgreSQL reads it: each `?` outside a quoted
 * literal or identifier becomes `$1`, `$2`, … in order. Memoised: the same few texts run
 * for every request.
 */
export function numberedPlaceholders(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    text = number(sql);
    numbered.set(sql, text);
  }
  return text;
}

function number(sql: string): string {
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (const char of sql) {
    if (quote !== null) {
      // A doubled quote inside a literal closes and reopens it: the same state either way.
      if (char === quote) quote = null;
      out += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      out += char;
    } else if (char === '?') {
      n += 1;
      out += `$${n}`;
    } else {
      out += char;
    }
  }
  return out;
}
