// Core: the few bad values kube-apiserver echoes with Go's %#v (a map, a struct), rendered as Go prints
// them so 422 messages match byte for byte. Go prints map keys sorted.
import { goQuote, GoLiteral } from './names';
import { isObj, type Obj } from './shape';

const byKey = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** map[string]string as %#v: nil when absent, `{}` when empty, `{"a":"b", "c":"d"}` otherwise. */
export function goStringMap(m: unknown): GoLiteral {
  if (!isObj(m)) return new GoLiteral('map[string]string(nil)');
  const body = Object.keys(m)
    .sort(byKey)
    .map((k) => `${goQuote(k)}:${goQuote(String(m[k]))}`)
    .join(', ');
  return new GoLiteral(`map[string]string{${body}}`);
}

/** []string as %#v, `[]string(nil)` when empty. */
function goStrings(list: unknown): string {
  if (!Array.isArray(list) || list.length === 0) return '[]string(nil)';
  return `[]string{${list.map((s) => goQuote(String(s))).join(', ')}}`;
}

/** *metav1.LabelSelector, dereferenced as ErrorBody does, printed with %#v. */
export function goLabelSelector(sel: Obj): GoLiteral {
  const ml = sel.matchLabels;
  const labels = isObj(ml) ? goStringMap(ml).text : 'map[string]string(nil)';
  const exprs = Array.isArray(sel.matchExpressions) && sel.matchExpressions.length > 0
    ? `[]v1.LabelSelectorRequirement{${sel.matchExpressions
      .map((e: Obj) => `v1.LabelSelectorRequirement{Key:${goQuote(String(e?.key ?? ''))}, Operator:${goQuote(String(e?.operator ?? ''))}, Values:${goStrings(e?.values)}}`)
      .join(', ')}}`
    : '[]v1.LabelSelectorRequirement(nil)';
  return new GoLiteral(`v1.LabelSelector{MatchLabels:${labels}, MatchExpressions:${exprs}}`);
}

/** intstr.IntOrString as %#v (Type 0 = Int, 1 = String). */
export function goIntOrString(v: number | string): GoLiteral {
  return typeof v === 'number'
    ? new GoLiteral(`intstr.IntOrString{Type:0, IntVal:${v}, StrVal:""}`)
    : new GoLiteral(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(v)}}`);
}

/** The (protocol, port) key ValidateService reports for a duplicate service port. */
export function goServicePortKey(protocol: string, port: number): GoLiteral {
  return new GoLiteral(
    `core.ServicePort{Name:"", Protocol:${goQuote(protocol)}, AppProtocol:(*string)(nil), Port:${port}, ` +
      'TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
  );
}

/** rbac.RoleRef as %#v, for `cannot change roleRef`. */
export function goRoleRef(ref: Obj | undefined): GoLiteral {
  const f = (k: string) => goQuote(typeof ref?.[k] === 'string' ? (ref[k] as string) : '');
  return new GoLiteral(`rbac.RoleRef{APIGroup:${f('apiGroup')}, Kind:${f('kind')}, Name:${f('name')}}`);
}

/** core.Taint as %#v, for duplicate node taints. */
export function goTaint(key: string, value: string, effect: string): GoLiteral {
  return new GoLiteral(`core.Taint{Key:${goQuote(key)}, Value:${goQuote(value)}, Effect:${goQuote(effect)}, TimeAdded:<nil>}`);
}

/** A strategy struct with its Type and RollingUpdate pointer (printed as nil or an opaque address). */
export function goStrategy(goType: string, rollingType: string, type: string, rollingUpdate: unknown): GoLiteral {
  const ptr = rollingUpdate === undefined || rollingUpdate === null ? 'nil' : '0xc000000000';
  return new GoLiteral(`apps.${goType}{Type:${goQuote(type)}, RollingUpdate:(*apps.${rollingType})(${ptr})}`);
}

/** apps.RollingUpdateStatefulSetStrategy as %#v. */
export function goStatefulSetRollingUpdate(r: Obj): GoLiteral {
  const partition = typeof r.partition === 'number' ? r.partition : 0;
  const mu = r.maxUnavailable === undefined || r.maxUnavailable === null ? 'nil' : '0xc000000000';
  return new GoLiteral(`apps.RollingUpdateStatefulSetStrategy{Partition:${partition}, MaxUnavailable:(*intstr.IntOrString)(${mu})}`);
}
