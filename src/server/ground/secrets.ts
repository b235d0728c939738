import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PUBLISHABLE_KEY_PREFIX, SECRET_KEY_PREFIX } from '../../api/routes.js';

export type KeyKind = 'secret' | 'publishable';

/** Unguessable, URL-safe identifiers: 16 random bytes = 128 bits (the floor is 96). */
export function newId(prefix = ''): string {
  return prefix + randomBytes(16).toString('base64url');
}

/** A new API key: the prefix names its kind, 32 random bytes make it unguessable. */
export function newApiKey(kind: KeyKind): string {
  const prefix = kind === 'secret' ? SECRET_KEY_PREFIX : PUBLISHABLE_KEY_PREFIX;
  return prefix + randomBytes(32).toString('base64url');
}

export function keyKindOf(key: string): KeyKind | null {
  if (key.startsWith(SECRET_KEY_PREFIX)) return 'secret';
  if (key.startsWith(PUBLISHABLE_KEY_PREFIX)) return 'publishable';
  return null;
}

/**
 * Why the random part of a key someone chose by hand is guessable, or `null` when it is not
 * (decisions.md: fewer than 16 distinct characters, or a run or repeat of a short pattern).
 * 32 base64url characters drawn at random have about 25 distinct ones; the chance that one
 * made by `newApiKey` is refused here is below 1e-20, so only a hand-made key ever is.
 */
export function keyWeakness(random: string): string | null {
  const chars = [...random];
  if (new Set(chars).size < 16) return 'it has fewer than 16 distinct characters';
  for (let period = 1; period <= chars.length / 2; period++) {
    if (chars.every((char, i) => i < period || char === chars[i - period])) {
      return `it repeats a pattern of ${period} characters`;
    }
  }
  // A run (`abcdef…`, `987654…`): neighbours one code point apart for half the key or more.
  // At random a neighbour is one apart about once in 32 pairs.
  let steps = 0;
  for (let i = 1; i < chars.length; i++) {
    const diff = (chars[i] as string).charCodeAt(0) - (chars[i - 1] as string).charCodeAt(0);
    if (Math.abs(diff) === 1) steps++;
  }
  if (steps * 2 >= chars.length - 1) return 'it is a run of neighbouring characters';
  return null;
}

/** Keys are stored only as SHA-256 hashes. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Shown in listings so a person can tell keys apart without seeing them. */
export function keyHint(key: string): string {
  return `${key.slice(0, 8)}…${key.slice(-4)}`;
}
