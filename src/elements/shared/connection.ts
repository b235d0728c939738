import { isSecretKey } from '../../api/routes.js';
import { FilehostApi } from '../../client/client.js';

/** Why an element cannot talk to the service; each element words it through its `strings`. */
export type ConnectionProblem = 'no_endpoint' | 'missing_auth' | 'secret_key';

/**
 * The API client for an element's `endpoint` and `api-key`, or what is wrong with them.
 * Both elements ask here, so they refuse the same settings for the same reasons: no
 * address (or not an http(s) one), no key, or a secret key, which must never be in a page.
 */
export function connect(endpoint: string, apiKey: string): FilehostApi | ConnectionProblem {
  if (!endpoint) return 'no_endpoint';
  if (!apiKey.trim()) return 'missing_auth';
  if (isSecretKey(apiKey)) return 'secret_key';
  try {
    return new FilehostApi({ endpoint, apiKey });
  } catch {
    // The client refuses an endpoint that is not an http(s) URL.
    return 'no_endpoint';
  }
}
