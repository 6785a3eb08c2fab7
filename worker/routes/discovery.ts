// Front door: discovery (/version, /api, /apis, /api/v1, /apis/<group>/<version>) and OpenAPI v3,
// all built from the resource registry.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from '../../core/discovery';
import { OPENAPI_V2_PROTOBUF_CONTENT_TYPE, openApiV2Protobuf, openApiV3Document, openApiV3Index } from '../../core/openapi';
import { unknownResource, statusResponse } from '../../core/status';

export const discovery = new Hono<AppEnv>();

discovery.get('/version', (c) => c.json(versionInfo()));
discovery.get('/api', (c) => c.json(apiVersions(new URL(c.req.url).host)));
discovery.get('/apis', (c) => c.json(apiGroupList()));
discovery.get('/api/:version', (c) => found(apiResourceList('', c.req.param('version'))));
discovery.get('/apis/:group', (c) => found(apiGroup(c.req.param('group'))));
discovery.get('/apis/:group/:version', (c) => found(apiResourceList(c.req.param('group'), c.req.param('version'))));
discovery.get('/openapi/v3', (c) => c.json(openApiV3Index()));
discovery.get('/openapi/v3/api/:version', (c) => found(openApiV3Document('', c.req.param('version'))));
discovery.get('/openapi/v3/apis/:group/:version', (c) => found(openApiV3Document(c.req.param('group'), c.req.param('version'))));
// kubectl apply reads v2 (protobuf only) for patch metadata; an empty document sends it to compiled-in types.
discovery.get('/openapi/v2', () => new Response(openApiV2Protobuf() as BodyInit, { headers: { 'content-type': OPENAPI_V2_PROTOBUF_CONTENT_TYPE } }));

function found(doc: object | undefined): Response {
  return doc ? Response.json(doc) : statusResponse(unknownResource());
}
