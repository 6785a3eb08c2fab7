// Console: who the page talks to and as whom. The token comes from the login form or the URL fragment
// (`/ui/#token=…`, which never reaches a server), and is kept for the tab only (sessionStorage).

const KEY = 'edgeplane.token';

export interface Session {
  server: string; // the page's own origin: the console is served by the gateway it shows
  token: string;
}

export function tokenFromLocation(): string | undefined {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!m) return undefined;
  // Drop the token from the address bar and history once read.
  history.replaceState(null, '', location.pathname + location.search);
  return decodeURIComponent(m[1]!);
}

export function savedToken(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token) sessionStorage.setItem(KEY, token);
  else sessionStorage.removeItem(KEY);
}

export async function api<T>(s: Session, path: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(s.server + path, {
    ...init,
    headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${s.token}`, ...(init.headers ?? {}) },
  });
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = JSON.parse(text).message ?? text;
    } catch {
      // not a Status
    }
    throw new ApiFailure(res.status, message);
  }
  return (text ? JSON.parse(text) : undefined) as T;
}

export class ApiFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(`${code}: ${message}`);
  }
}
