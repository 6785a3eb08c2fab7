// Core: ConfigMap and Secret validation with kube-apiserver's (v1.32) messages, after
// pkg/apis/core/validation ValidateConfigMap, ValidateSecret and ValidateSecretUpdate. Data values are
// base64 on the wire; sizes count decoded bytes, as Go's []byte does.
import { configKeyMessages } from './pod';
import { invalidValue, required, tooLong, utf8Length } from './names';
import { Causes, entries, type Obj } from './shape';

/** core.MaxSecretSize, also the ConfigMap limit. */
export const MAX_SECRET_SIZE = 1024 * 1024;
const REDACTED = '<secret contents redacted>';

/** Bytes of a base64 value, or undefined when it is not base64 (Go's decoder would 400). */
function decodedBytes(value: string): Uint8Array | undefined {
  try {
    const bin = atob(value);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

export function validateConfigMap(v: Causes, obj: Obj): void {
  const data = v.obj(obj.data, 'data');
  const binary = v.obj(obj.binaryData, 'binaryData');
  v.bool(obj.immutable, 'immutable');
  let total = 0;
  for (const [key, value] of entries(data)) {
    const path = `data[${key}]`;
    for (const m of configKeyMessages(key)) v.add(invalidValue(path, key, m));
    if (binary && Object.hasOwn(binary, key)) v.add(invalidValue(path, key, 'duplicate of key present in binaryData'));
    const s = v.str(value, path);
    if (s !== undefined) total += utf8Length(s);
  }
  for (const [key, value] of entries(binary)) {
    const path = `binaryData[${key}]`;
    for (const m of configKeyMessages(key)) v.add(invalidValue(path, key, m));
    const s = v.str(value, path);
    if (s === undefined) continue;
    const bytes = decodedBytes(s);
    if (bytes) total += bytes.length;
    else v.add(invalidValue(path, s, 'illegal base64 data'));
  }
  // kube passes field.NewPath(""), which prints as "[]".
  if (total > MAX_SECRET_SIZE) v.add(tooLong('[]', MAX_SECRET_SIZE));
}

export function validateSecret(v: Causes, obj: Obj, old?: Obj): void {
  // stringData is merged over data by the v1 conversion before validation.
  const data = new Map<string, Uint8Array>();
  for (const [key, value] of entries(v.obj(obj.data, 'data'))) {
    const s = v.str(value, `data[${key}]`);
    if (s === undefined) continue;
    const bytes = decodedBytes(s);
    if (bytes) data.set(key, bytes);
    else v.add(invalidValue(`data[${key}]`, REDACTED, 'illegal base64 data'));
  }
  for (const [key, value] of entries(v.obj(obj.stringData, 'stringData'))) {
    const s = v.str(value, `stringData[${key}]`);
    if (s !== undefined) data.set(key, new TextEncoder().encode(s));
  }
  v.bool(obj.immutable, 'immutable');
  let type = obj.type === undefined ? 'Opaque' : v.str(obj.type, 'type');
  if (old) {
    const oldType = typeof old.type === 'string' ? old.type : 'Opaque';
    if (type === '') type = oldType;
    if (type !== undefined && type !== oldType) v.add(invalidValue('type', type, 'field is immutable'));
  }
  let total = 0;
  for (const [key, bytes] of data) {
    for (const m of configKeyMessages(key)) v.add(invalidValue(`data[${key}]`, key, m));
    total += bytes.length;
  }
  if (total > MAX_SECRET_SIZE) v.add(tooLong('data', MAX_SECRET_SIZE));
  switch (type) {
    case 'kubernetes.io/service-account-token': {
      const meta = obj.metadata as Obj | undefined;
      const ann = meta && typeof meta.annotations === 'object' && meta.annotations !== null ? (meta.annotations as Obj) : {};
      const sa = ann['kubernetes.io/service-account.name'];
      if (typeof sa !== 'string' || sa === '') v.add(required('metadata.annotations[kubernetes.io/service-account.name]'));
      break;
    }
    case 'kubernetes.io/dockercfg':
      dockerJson(v, data, '.dockercfg');
      break;
    case 'kubernetes.io/dockerconfigjson':
      dockerJson(v, data, '.dockerconfigjson');
      break;
    case 'kubernetes.io/basic-auth':
      // kube builds these paths from NewPath("data[%s]"), hence the literal "%s".
      if (!data.has('username') && !data.has('password')) {
        v.add(required('data[%s][username]'));
        v.add(required('data[%s][password]'));
      }
      break;
    case 'kubernetes.io/ssh-auth':
      if (!data.get('ssh-privatekey')?.length) v.add(required('data[%s][ssh-privatekey]'));
      break;
    case 'kubernetes.io/tls':
      if (!data.has('tls.crt')) v.add(required('data[tls.crt]'));
      if (!data.has('tls.key')) v.add(required('data[tls.key]'));
      break;
  }
}

function dockerJson(v: Causes, data: Map<string, Uint8Array>, key: string): void {
  const bytes = data.get(key);
  if (!bytes) {
    v.add(required(`data[${key}]`));
    return;
  }
  const err = goJsonObjectError(new TextDecoder().decode(bytes));
  if (err) v.add(invalidValue(`data[${key}]`, REDACTED, err));
}

/**
 * What Go's json.Unmarshal into map[string]interface{} reports: exact for a wrong first character, an
 * empty or truncated document and a non-object value; other syntax errors name the offending character
 * without Go's context phrase.
 */
function goJsonObjectError(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    const trimmed = text.trim();
    if (trimmed === '' || /Unexpected end/i.test(String(e))) return 'unexpected end of JSON input';
    const c = trimmed[0];
    if (!'{["-0123456789tfn'.includes(c)) return `invalid character '${c}' looking for beginning of value`;
    const at = /position (\d+)/.exec(String(e));
    return at ? `invalid character '${text[Number(at[1])] ?? ''}'` : 'invalid JSON';
  }
  if (parsed === null || (typeof parsed === 'object' && !Array.isArray(parsed))) return undefined;
  const kind = Array.isArray(parsed) ? 'array' : typeof parsed === 'boolean' ? 'bool' : typeof parsed;
  return `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`;
}
