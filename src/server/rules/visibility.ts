import type { Visibility } from '../../api/types.js';
import { fail } from '../ground/errors.js';

/**
 * A file's visibility as a request gives it (the sign body's `visibility`, the
 * `X-Visibility` header, the multipart field `visibility`): absent is `public`, the
 * default; anything but the two words is `400 invalid_request`, never a silent `public`
 * (a typo must not publish a file meant to be private).
 */
export function parseVisibility(value: unknown, where: string): Visibility {
  if (value === undefined) return 'public';
  if (value === 'public' || value === 'private') return value;
  fail('invalid_request', `${where} must be "public" or "private".`);
}
