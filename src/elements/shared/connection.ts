import { isSecretKey } from '../../api/page-api.js';
import type { FilehostClientOptions, FilehostConnection } from '../../client/connection.js';

/** Why an element cannot talk to the service; each element words it through its `strings`. */
export type ConnectionProblem = 'no_endpoint' | 'missing_auth' | 'secret_key';

/**
 * The API client for an element's `endpoint` and `api-key`, or what is wrong with them.
 * Both elements ask here, so they refuse the same settings for the same reasons: no
 * address (or not an http(s) one), no key, or a secret key, which must never be in a page.
 * Each names the client it needs (`<file-list>` only `FilehostConnection`, its list,
 * the upload engine `FilehostApi`), so the first load carries no upload call.
 */
export function connect<
  Client extends FilehostConnection,
  Options extends FilehostClientOptions = FilehostClientOptions,
>(
  Client: new (options: Options) => Client,
  endpoint: string,
  apiKey: string,
  extra?: Partial<Options>,
): Client | ConnectionProblem {
  if (!endpoint) return 'no_endpoint';
  if (!apiKey.trim()) return 'missing_auth';
  if (isSecretKey(apiKey)) return 'secret_key';
  try {
    return new Client({ ...extra, endpoint, apiKey } as Options);
  } catch {
    // The client refuses an endpoint that is not an http(s) URL.
    return 'no_endpoint';
  }
}
