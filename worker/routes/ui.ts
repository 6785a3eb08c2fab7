// Front door: the console's static assets at /ui/, the only paths served without authentication. They are
// public code and map data; everything the page then asks of the API is authenticated and authorized as usual.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { UI_ASSETS } from '../ui-assets.generated';

export const ui = new Hono<AppEnv>();

const byPath = new Map(UI_ASSETS.map((a) => [a.path, a]));

function serve(path: string): Response | undefined {
  const asset = byPath.get(path);
  if (!asset) return undefined;
  return new Response(asset.body, {
    headers: {
      'content-type': asset.type,
      // The page may fetch and script only from this origin; it talks to the API it is served by.
      'content-security-policy': "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
      'cache-control': path === '/ui/' ? 'no-cache' : 'public, max-age=300',
    },
  });
}

ui.get('/ui', (c) => c.redirect('/ui/', 301));
ui.get('/ui/*', (c, next) => serve(new URL(c.req.url).pathname) ?? next());
ui.get('/favicon.ico', () => serve('/ui/favicon.svg')!);
