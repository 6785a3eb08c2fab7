// Canonical and caching layers: does an object match a list's or watch's label and field selectors?

import type { ResourceType } from '../registry';
import type { KubeObject } from '../object-meta';
import type { ParsedSelectors } from './options';
import { matchesLabels } from '../selectors/label-selector';
import { matchesFields } from '../selectors/field-selector';
import { objectFields } from '../selectors/object-fields';

export function matchesObject(type: ResourceType, obj: KubeObject, sel: ParsedSelectors): boolean {
  return matchesLabels(sel.labels, obj.metadata.labels ?? {}) && matchesFields(sel.fields, objectFields(type, obj));
}
