import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { PUBLISHABLE_KEY_PREFIX, SECRET_KEY_PREFIX } from '../api/routes.js';

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
