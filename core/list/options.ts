// Front door: parses and validates list/watch query parameters exactly as apimachinery's
// internalversion validation does, so bad combinations get the same 400/422 as from kube-apiserver.

import { badRequest, invalid, StatusError, type StatusCause } from '../status';
import { parseResourceVersion } from '../revision';
import { parseLabelSelector, type LabelSelector } from '../selectors/label-selector';
import { parseFieldSelector, type FieldSelector } from '../selectors/field-selector';
import { SelectorError } from '../selectors/selector-error';
import { checkFieldSelector } from '../selectors/object-fields';
import type { ResourceType } from '../registry';
import { optionalQueryBool, queryBool } from '../query-bool';

export type ResourceVersionMatch = '' | 'Exact' | 'NotOlderThan';

export interface ListOptions {
  labelSelector: string;
  fieldSelector: string;
  resourceVersion: string; // as sent; '' when unset
  revision: number; // parsed resourceVersion, 0 for '' and '0'
  resourceVersionMatch: ResourceVersionMatch;
  limit: number; // 0 = no limit
  continue: string;
  timeoutSeconds: number; // 0 = unset
  allowWatchBookmarks: boolean;
  sendInitialEvents: boolean | undefined;
}

export interface ParsedSelectors {
  labels: LabelSelector;
  fields: FieldSelector;
}

const LIST_OPTIONS_GROUP = 'meta.k8s.io';
const LIST_OPTIONS_KIND = 'ListOptions';

export function parseListOptions(query: URLSearchParams, isWatch: boolean): ListOptions {
  const resourceVersion = query.get('resourceVersion') ?? '';
  const opts: ListOptions = {
    labelSelector: query.get('labelSelector') ?? '',
    fieldSelector: query.get('fieldSelector') ?? '',
    resourceVersion,
    revision: parseRevisionParam(resourceVersion),
    resourceVersionMatch: (query.get('resourceVersionMatch') ?? '') as ResourceVersionMatch,
    limit: parseIntParam(query, 'limit'),
    continue: query.get('continue') ?? '',
    timeoutSeconds: parseIntParam(query, 'timeoutSeconds'),
    allowWatchBookmarks: queryBool(query, 'allowWatchBookmarks'),
    sendInitialEvents: optionalQueryBool(query, 'sendInitialEvents'),
  };
  const causes = isWatch ? validateWatch(opts) : validateList(opts);
  if (causes.length) throw new StatusError(invalid(LIST_OPTIONS_GROUP, LIST_OPTIONS_KIND, '', causes));
  return opts;
}

/** Parses both selectors; field labels the type does not support are a 400, as in kube-apiserver. */
export function parseSelectors(opts: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>, type?: ResourceType): ParsedSelectors {
  let parsed: ParsedSelectors;
  try {
    parsed = { labels: parseLabelSelector(opts.labelSelector), fields: parseFieldSelector(opts.fieldSelector) };
  } catch (e) {
    if (e instanceof SelectorError) throw new StatusError(badRequest(e.message));
    throw e;
  }
  const unsupported = type && checkFieldSelector(type, parsed.fields);
  if (unsupported) throw new StatusError(badRequest(unsupported));
  return parsed;
}

function parseRevisionParam(rv: string): number {
  try {
    return parseResourceVersion(rv);
  } catch (e) {
    throw new StatusError(badRequest((e as Error).message));
  }
}

function parseIntParam(query: URLSearchParams, name: string): number {
  const raw = query.get(name);
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  if (!Number.isInteger(n)) {
    throw new StatusError(badRequest(`invalid value for ${name}: strconv.ParseInt: parsing "${raw}": invalid syntax`));
  }
  return Math.max(0, n);
}

function forbiddenCause(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: `Forbidden: ${detail}`, field };
}

// apimachinery pkg/apis/meta/internalversion/validation/validation.go ValidateListOptions: all errors, in order.
function validateList(o: ListOptions): StatusCause[] {
  const causes: StatusCause[] = [];
  const m = o.resourceVersionMatch;
  if (m) {
    if (o.resourceVersion === '') {
      causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (o.continue) {
      causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    if (m !== 'Exact' && m !== 'NotOlderThan') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: "${m}": supported values: "Exact", "NotOlderThan", ""`,
        field: 'resourceVersionMatch',
      });
    }
    if (m === 'Exact' && o.resourceVersion === '0') {
      causes.push(forbiddenCause('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (o.sendInitialEvents !== undefined) {
    causes.push(forbiddenCause('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return causes;
}

// validation.go validateWatchOptions: WatchList (sendInitialEvents) is enabled here.
function validateWatch(o: ListOptions): StatusCause[] {
  if (o.sendInitialEvents !== undefined) {
    if (o.resourceVersionMatch !== 'NotOlderThan') {
      return [forbiddenCause('sendInitialEvents', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan')];
    }
    return [];
  }
  if (o.resourceVersionMatch) {
    return [forbiddenCause('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')];
  }
  return [];
}
