// Front door: a request's URL, parsed once. Authorization, audit, custom types and response encoding each need
// it; every `new URL` costs workerd a native parse (bench/profile.ts writes-64: ~2% of a create's CPU each).
// Callers must not modify the URL they get.

const parsed = new WeakMap<Request, URL>();

export function requestUrl(req: Request): URL {
  let url = parsed.get(req);
  if (!url) {
    url = new URL(req.url);
    parsed.set(req, url);
  }
  return url;
}
