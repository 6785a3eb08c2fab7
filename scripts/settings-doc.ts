// Script: writes the settings table of docs/configuration.md from core/settings.ts (between the two markers),
// so the documentation cannot drift from what the code parses. `npm run gen` runs it; `--check` fails when the
// committed page differs (run by the unit tests too).

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { settingsRows } from '../core/settings';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CONFIGURATION_DOC = join(ROOT, 'docs', 'configuration.md');
const BEGIN = '<!-- settings table: generated from core/settings.ts by npm run gen -->';
const END = '<!-- end of settings table -->';

/** The page with its settings table as core/settings.ts describes the settings now. */
export function configurationPage(current = readFileSync(CONFIGURATION_DOC, 'utf8')): string {
  const start = current.indexOf(BEGIN);
  const end = current.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CONFIGURATION_DOC} lacks the settings table markers`);
  const rows = settingsRows().map((r) => `| \`${r.env}\` | ${r.kind} | ${r.default === '' ? '(empty)' : `\`${r.default}\``} | ${r.range} | ${r.doc} |`);
  const table = ['| setting | kind | default | allowed | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
  return `${current.slice(0, start)}${BEGIN}\n${table}\n${current.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const page = configurationPage();
  if (process.argv.includes('--check')) {
    if (readFileSync(CONFIGURATION_DOC, 'utf8') !== page) {
      console.error(`${CONFIGURATION_DOC} is stale: run npm run gen`);
      process.exit(1);
    }
  } else {
    writeFileSync(CONFIGURATION_DOC, page);
  }
}
