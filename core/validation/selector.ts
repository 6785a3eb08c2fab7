// Core: metav1 LabelSelector validation (apimachinery meta/v1/validation ValidateLabelSelector) and the
// "does the selector match the template" check every workload makes.
import { selectorFromLabelSelector, matchesLabels, type LabelSelectorSpec } from '../selectors/label-selector';
import { forbidden, invalidValue, labelKeyMessages, labelValueMessages, required, validateLabels } from './names';
import { Causes, type Obj } from './shape';

/** ValidateLabelSelector with AllowInvalidLabelValueInSelector off. */
export function validateLabelSelector(v: Causes, sel: Obj, path: string): void {
  v.add(...validateLabels(sel.matchLabels, `${path}.matchLabels`));
  v.objs(sel.matchExpressions, `${path}.matchExpressions`).forEach((expr, i) => {
    const p = `${path}.matchExpressions[${i}]`;
    const operator = v.str(expr.operator, `${p}.operator`) ?? '';
    const values = v.strs(expr.values, `${p}.values`);
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) v.add(required(`${p}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) v.add(forbidden(`${p}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      v.add(invalidValue(`${p}.operator`, operator, 'not a valid selector operator'));
    }
    const key = v.str(expr.key, `${p}.key`) ?? '';
    for (const msg of labelKeyMessages(key)) v.add(invalidValue(`${p}.key`, key, msg));
    values.forEach((value, j) => {
      for (const msg of labelValueMessages(value)) v.add(invalidValue(`${p}.values[${j}]`, value, msg));
    });
  });
}

/**
 * metav1.LabelSelectorAsSelector(sel).Matches(labels). `nil` selects nothing and `{}` everything, as in
 * Go; undefined when the selector cannot be converted (kube reports that separately, or not at all).
 */
export function selectorMatches(sel: Obj | undefined, labels: unknown): boolean | undefined {
  try {
    const s = selectorFromLabelSelector(sel as LabelSelectorSpec | undefined);
    const set = typeof labels === 'object' && labels !== null && !Array.isArray(labels) ? (labels as Record<string, string>) : {};
    return matchesLabels(s, set);
  } catch {
    return undefined;
  }
}

/** True for `{}`: LabelSelectorAsSelector gives labels.Everything(), whose Empty() is true. */
export function selectorIsEmpty(sel: Obj | undefined): boolean {
  if (!sel) return false;
  const ml = sel.matchLabels;
  const me = sel.matchExpressions;
  const nLabels = typeof ml === 'object' && ml !== null ? Object.keys(ml).length : 0;
  const nExprs = Array.isArray(me) ? me.length : 0;
  return nLabels + nExprs === 0;
}
