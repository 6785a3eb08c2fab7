// Tooling: where the project is, for scripts that must not load the bundler to know it (scripts/build.ts).

import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE = join(ROOT, 'dist', 'worker.js');
