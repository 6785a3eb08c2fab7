// Front door: discovery (/version, /api, /apis, /api/v1, /apis/<group>/<version>) and OpenAPI v3 and v2,
// all built from the resource registry.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from '../../core/discovery/legacy';
import { aggregatedContentType, aggregatedCore, aggregatedGroups, negotiateAggregated, type AggregatedVersion } from '../../core/discovery/aggregated';
import { openApiV3Index, publishedV3Document } from '../../core/discovery/openapi-v3';
import { customV3Document, customV3IndexPaths } from '../../core/crd/openapi';
import { negotiateOpenApiV2, OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openApiV2Json, openApiV2Protobuf } from '../../core/discovery/openapi-v2';
import { unknownResource, statusResponse } from '../../core/status';
import { discoveryOverlayFor, staleBuiltIn, unavailableAggregated } from '../handlers/aggregated';

export const discovery = new Hono<AppEnv>();

// apiserver's version handler writes it with responsewriters.WriteRawJSON: indented, no newline after it.
discovery.get('/version', () => new Response(JSON.stringify(versionInfo(), null, 2), { headers: { 'content-type': 'application/json' } }));
// Aggregated discovery for clients that ask for it (kubectl, client-go); the legacy documents otherwise.
discovery.get('/api', (c) => {
  const v = negotiateAggregated(c.req.header('accept'));
  return v ? aggregated(aggregatedCore(v), v) : withVary(c.json(apiVersions(new URL(c.req.url).host)));
});
// The APIServices that hand a group version to a Service shape these documents as kube-aggregator's do.
discovery.get('/apis', async (c) => {
  const v = negotiateAggregated(c.req.header('accept'));
  const overlay = await discoveryOverlayFor(c);
  return v ? aggregated(aggregatedGroups(v, overlay), v) : withVary(c.json(apiGroupList(overlay)));
});
discovery.get('/api/:version', (c) => found(apiResourceList('', c.req.param('version'))));
discovery.get('/apis/:group', async (c) => found(apiGroup(c.req.param('group'), await discoveryOverlayFor(c))));
discovery.get('/apis/:group/:version', async (c) => {
  const group = c.req.param('group'), version = c.req.param('version');
  const doc = apiResourceList(group, version);
  // A group version only an unavailable APIService names, or a built-in one such an APIService took over
  // (metrics-server's v1beta1.metrics.k8s.io): the aggregator's 503 (worker/handlers/aggregated.ts).
  const unavailable = doc ? await staleBuiltIn(c, group, version) : await unavailableAggregated(c, group, version);
  return unavailable || found(doc);
});
discovery.get('/openapi/v3', (c) => {
  const index = openApiV3Index();
  const custom = customV3IndexPaths();
  return c.json(Object.keys(custom).length ? { paths: { ...index.paths, ...custom } } : index);
});
discovery.get('/openapi/v3/api/:version', (c) => v3Document(c.req.raw, '', c.req.param('version')));
discovery.get('/openapi/v3/apis/:group/:version', (c) => v3Document(c.req.raw, c.req.param('group'), c.req.param('version')));
// kubectl reads v2 as protobuf, for `kind: List` validation and apply's second source of patch metadata.
discovery.get('/openapi/v2', (c) => {
  const form = negotiateOpenApiV2(c.req.header('accept'));
  if (!form) return new Response(null, { status: 406 });
  return form === 'json'
    ? new Response(openApiV2Json(), { headers: { 'content-type': 'application/json' } })
    : new Response(openApiV2Protobuf() as BodyInit, { headers: { 'content-type': OPENAPI_V2_PROTOBUF_CONTENT_TYPE } });
});

/**
 * As kube-openapi handler3: a stale ?hash= is redirected (301) to the current one, a matching one is cacheable for
 * a year, and the hash is the ETag (If-None-Match answers 304).
 */
function v3Document(req: Request, group: string, version: string): Response {
  const published = publishedV3Document(group, version) ?? customV3Document(group, version);
  if (!published) return statusResponse(unknownResource());
  const url = new URL(req.url);
  const hash = url.searchParams.get('hash');
  const etag = `"${published.hash}"`;
  const headers = new Headers({ 'content-type': 'application/json', etag });
  if (hash !== null) {
    if (hash !== published.hash) {
      url.searchParams.set('hash', published.hash);
      return new Response(null, { status: 301, headers: { location: `${url.pathname}${url.search}` } });
    }
    headers.set('vary', 'Accept');
    headers.set('cache-control', 'public, immutable');
    headers.set('expires', new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString());
  }
  if (req.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  return new Response(published.json, { headers });
}

function aggregated(doc: object, v: AggregatedVersion): Response {
  return new Response(JSON.stringify(doc), { headers: { 'content-type': aggregatedContentType(v), vary: 'Accept' } });
}

function withVary(res: Response): Response {
  res.headers.set('vary', 'Accept');
  return res;
}

function found(doc: object | undefined): Response {
  return doc ? Response.json(doc) : statusResponse(unknownResource());
}
