// Tests: the committed schema data is exactly what scripts/openapi-schemas.ts makes from the Kubernetes
// OpenAPI document, and every reference in it resolves.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFINITIONS_FILE, DESCRIPTIONS_FILE, generatedFiles } from '../../../scripts/openapi-schemas';
import definitions from '../../../core/schema/definitions.generated.json';

describe('core/schema generated data', () => {
  it('matches the source document', () => {
    const files = generatedFiles();
    expect(readFileSync(DEFINITIONS_FILE, 'utf8') === files.definitions, 'definitions.generated.json is stale').toBe(true);
    expect(readFileSync(DESCRIPTIONS_FILE, 'utf8') === files.descriptions, 'descriptions.generated.json is stale').toBe(true);
  });

  it('every $ref names a kept definition', () => {
    const missing: string[] = [];
    const walk = (s: unknown, at: string): void => {
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (typeof o.$ref === 'string' && !(o.$ref in definitions)) missing.push(`${at} → ${o.$ref}`);
      for (const [k, p] of Object.entries((o.properties ?? {}) as Record<string, unknown>)) walk(p, `${at}.${k}`);
      walk(o.items, `${at}[]`);
      walk(o.additionalProperties, `${at}{}`);
    };
    for (const [name, s] of Object.entries(definitions)) walk(s, name);
    expect(missing).toEqual([]);
  });
});
