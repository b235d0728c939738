import document from '../../../api/openapi.json' with { type: 'json' };
import type { ServiceContext } from '../../context.js';
import type { RouteInput } from '../route-input.js';

/**
 * The document changes only with a new version of the service, but a deployment may be
 * upgraded any time: an hour of caching spares clients refetching it without pinning an
 * old one for long.
 */
const CACHE_CONTROL = 'public, max-age=3600';

/**
 * `GET /v1/openapi.json`: the OpenAPI description of this API, public (no key) like the
 * package export of the same file. Its `servers` name this deployment's own API and CDN,
 * so a tool pointed at the URL calls the service that answered it.
 */
export async function openapiHandler(
  ctx: ServiceContext,
  { reply }: RouteInput<'openapi'>,
): Promise<void> {
  reply.header('Cache-Control', CACHE_CONTROL).send(withServers(ctx.urls));
}

/** The document with `servers` set to these URLs (the API's, and the CDN paths' own). */
export function withServers(urls: { api: string; cdn: string }): typeof document {
  // A path names its servers by template: the CDN's (its files), or both (health).
  const served = (server: { url: string }) =>
    server.url === '{apiUrl}'
      ? { url: urls.api, description: 'The API' }
      : { url: urls.cdn, description: 'The CDN' };
  const paths = Object.fromEntries(
    Object.entries(document.paths).map(([path, item]) => [
      path,
      'servers' in item ? { ...item, servers: item.servers.map(served) } : item,
    ]),
  );
  return {
    ...document,
    servers: [{ url: urls.api, description: 'The API' }],
    paths,
  } as typeof document;
}
