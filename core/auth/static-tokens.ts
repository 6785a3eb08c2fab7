// Front door authentication: static bearer tokens in kube-apiserver's --token-auth-file format,
// one per line: token,user,uid,"group1,group2" (groups optional).

import type { UserInfo } from '../rbac/authorize';

export function parseStaticTokens(text: string): Map<string, UserInfo> {
  const users = new Map<string, UserInfo>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = splitCsv(line);
    if (fields.length < 3 || !fields[0] || !fields[1]) continue;
    const groups = fields[3] ? fields[3].split(',').map((g) => g.trim()).filter(Boolean) : [];
    users.set(fields[0], { username: fields[1], uid: fields[2], groups });
  }
  return users;
}

// CSV with double-quoted fields (a quoted field may hold commas).
function splitCsv(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}
