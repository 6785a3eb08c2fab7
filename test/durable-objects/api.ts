// Test helper: requests into the real Worker entry (front door → store) inside the Workers test pool.
import { exports } from 'cloudflare:workers';

export const TOKEN = 'test-admin-token';

export async function api(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await (exports as { default: Fetcher }).default.fetch(`http://edgeplane.test${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

export function configMap(name: string, data: Record<string, string> = {}, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}
