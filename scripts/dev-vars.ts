// Tooling: the local secrets `npm start` keeps in .dev.vars (the file wrangler reads too), each generated
// on first use as 32 random bytes, base64url. A .dev.vars that lacks one (e.g. from before
// SERVICE_ACCOUNT_SIGNING_KEY existed) gets that line appended; the lines already there are kept as they are.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export function ensureLocalSecrets<N extends string>(file: string, names: readonly N[]): Record<N, string> {
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const original = text;
  const values = {} as Record<N, string>;
  for (const name of names) {
    const existing = new RegExp(`^${name}\\s*=\\s*"?([^"\\n]+)"?`, 'm').exec(text);
    if (existing) {
      values[name] = existing[1];
      continue;
    }
    values[name] = randomBytes(32).toString('base64url');
    text += `${text && !text.endsWith('\n') ? '\n' : ''}${name}="${values[name]}"\n`;
  }
  if (text !== original) writeFileSync(file, text, { mode: 0o600 });
  return values;
}
