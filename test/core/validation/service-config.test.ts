// Service, ConfigMap and Secret validation: kube-apiserver's exact causes.
import { describe, expect, it } from 'vitest';
import { service } from './manifests';
import { causesOf, CONFIG_KEY, DNS_LABEL, dup, forb, inv, mutated, RANGE, req, unsup, type Any } from './helpers';

const b64 = (s: string) => btoa(s);

describe('services', () => {
  it.each<[string, (s: Any) => void, object[]]>([
    ['no ports', (s) => { s.spec.ports = []; }, [req('spec.ports')]],
    ['headless and ExternalName services need no ports', (s) => { s.spec.ports = []; s.spec.clusterIP = 'None'; }, []],
    ['ExternalName without externalName', (s) => { s.spec = { type: 'ExternalName' }; }, [req('spec.externalName')]],
    ['ExternalName with a bad name and a clusterIP', (s) => { s.spec = { type: 'ExternalName', externalName: 'Not A Host', clusterIP: '10.0.0.1' }; }, [
      forb('spec.clusterIPs', 'may not be set for ExternalName services'),
      inv('spec.externalName', '"Not A Host"', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ]],
    ['ExternalName with a trailing dot is fine', (s) => { s.spec = { type: 'ExternalName', externalName: 'db.example.com.' }; }, []],
    ['ports need names when there are several, names unique and DNS labels', (s) => {
      s.spec.ports = [{ port: 80 }, { name: 'HTTP', port: 81 }, { name: 'a', port: 82 }, { name: 'a', port: 83 }];
    }, [
      req('spec.ports[0].name'),
      inv('spec.ports[1].name', '"HTTP"', DNS_LABEL),
      dup('spec.ports[3].name', '"a"'),
    ]],
    ['port numbers and protocol', (s) => { s.spec.ports = [{ port: 0, protocol: 'ICMP', targetPort: 70000 }]; }, [
      inv('spec.ports[0].port', '0', RANGE),
      unsup('spec.ports[0].protocol', '"ICMP"', ['SCTP', 'TCP', 'UDP']),
      inv('spec.ports[0].targetPort', '70000', RANGE),
    ]],
    ['a named targetPort must be an IANA service name', (s) => { s.spec.ports = [{ port: 80, targetPort: 'web_port' }]; }, [
      inv('spec.ports[0].targetPort', '"web_port"', 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'),
    ]],
    ['the same port and protocol twice', (s) => { s.spec.ports = [{ name: 'a', port: 80 }, { name: 'b', port: 80, protocol: 'TCP' }, { name: 'c', port: 80, protocol: 'UDP' }]; }, [
      dup('spec.ports[1]', 'core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}'),
    ]],
    ['unknown type and affinity', (s) => { s.spec.type = 'Internal'; s.spec.sessionAffinity = 'Sticky'; }, [
      unsup('spec.sessionAffinity', '"Sticky"', ['ClientIP', 'None']),
      unsup('spec.type', '"Internal"', ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']),
    ]],
    ['selector label syntax', (s) => { s.spec.selector = { 'app/x/y': 'web' }; }, [
      inv('spec.selector', '"app/x/y"', "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ]],
    ['nodePort on a ClusterIP service', (s) => { s.spec.ports[0].nodePort = 30080; }, [
      forb('spec.ports[0].nodePort', "may not be used when `type` is 'ClusterIP'"),
    ]],
    ['NodePort service with clusterIP None', (s) => { s.spec.type = 'NodePort'; s.spec.clusterIP = 'None'; }, [
      inv('spec.clusterIPs[0]', '"None"', "may not be set to 'None' for NodePort services"),
    ]],
  ])('%s', (_name, change, expected) => {
    expect(causesOf(mutated(service, change))).toEqual(expected);
  });
});

const cm = (extra: Any = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' }, ...extra });
const secret = (extra: Any = {}) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' }, ...extra });

describe('configmaps', () => {
  it.each<[string, Any, object[]]>([
    ['valid keys and binary data', { data: { 'app.properties': 'a=1', KEY_NAME: 'x', '.env': 'y' }, binaryData: { 'logo.png': b64('\x89PNG') } }, []],
    ['bad keys', { data: { 'a/b': '1', '..x': '2', '.': '3' } }, [
      inv('data[a/b]', '"a/b"', CONFIG_KEY),
      inv('data[..x]', '"..x"', "must not start with '..'"),
      inv('data[.]', '"."', "must not be '.'"),
    ]],
    ['a key in both data and binaryData', { data: { k: 'v' }, binaryData: { k: b64('v') } }, [
      inv('data[k]', '"k"', 'duplicate of key present in binaryData'),
    ]],
    ['more than 1 MiB in total', { data: { a: 'x'.repeat(600 * 1024), b: 'y'.repeat(600 * 1024) } }, [
      { reason: 'FieldValueTooLong', field: '[]', message: 'Too long: may not be more than 1048576 bytes' },
    ]],
    ['a value of the wrong type', { data: { a: 1 } }, [inv('data[a]', '1', 'must be of type string')]],
  ])('%s', (_name, extra, expected) => {
    expect(causesOf(cm(extra))).toEqual(expected);
  });
});

describe('secrets', () => {
  const dockerconfig = b64(JSON.stringify({ auths: { 'registry.example.com': { auth: b64('u:p') } } }));
  it.each<[string, Any, object[]]>([
    ['Opaque with data and stringData', { type: 'Opaque', data: { password: b64('s3cr3t') }, stringData: { user: 'admin' } }, []],
    ['tls', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('CERT'), 'tls.key': b64('KEY') } }, []],
    ['tls without cert and key', { type: 'kubernetes.io/tls', data: {} }, [req('data[tls.crt]'), req('data[tls.key]')]],
    ['tls with the key in stringData', { type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C') }, stringData: { 'tls.key': 'K' } }, []],
    ['dockerconfigjson', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': dockerconfig } }, []],
    ['dockerconfigjson missing', { type: 'kubernetes.io/dockerconfigjson', data: {} }, [req('data[.dockerconfigjson]')]],
    ['dockerconfigjson not JSON', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('garbage') } }, [
      inv('data[.dockerconfigjson]', '"<secret contents redacted>"', "invalid character 'g' looking for beginning of value"),
    ]],
    ['dockerconfigjson truncated', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('{"auths":') } }, [
      inv('data[.dockerconfigjson]', '"<secret contents redacted>"', 'unexpected end of JSON input'),
    ]],
    ['dockerconfigjson a JSON list', { type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': b64('[1]') } }, [
      inv('data[.dockerconfigjson]', '"<secret contents redacted>"', 'json: cannot unmarshal array into Go value of type map[string]interface {}'),
    ]],
    ['dockercfg', { type: 'kubernetes.io/dockercfg', data: {} }, [req('data[.dockercfg]')]],
    ['service-account-token needs the annotation', { type: 'kubernetes.io/service-account-token' }, [
      req('metadata.annotations[kubernetes.io/service-account.name]'),
    ]],
    ['service-account-token with the annotation', { type: 'kubernetes.io/service-account-token', metadata: { name: 's', namespace: 'default', annotations: { 'kubernetes.io/service-account.name': 'default' } } }, []],
    ['basic-auth with neither username nor password', { type: 'kubernetes.io/basic-auth', data: {} }, [
      req('data[%s][username]'), req('data[%s][password]'),
    ]],
    ['basic-auth with a username only', { type: 'kubernetes.io/basic-auth', stringData: { username: 'admin' } }, []],
    ['ssh-auth without a key', { type: 'kubernetes.io/ssh-auth', data: { 'ssh-privatekey': '' } }, [req('data[%s][ssh-privatekey]')]],
    ['bad key and more than 1 MiB', { data: { 'a b': b64('x'), big: b64('x'.repeat(1024 * 1024)) } }, [
      inv('data[a b]', '"a b"', CONFIG_KEY),
      { reason: 'FieldValueTooLong', field: 'data', message: 'Too long: may not be more than 1048576 bytes' },
    ]],
    ['data that is not base64', { data: { a: '%%%' } }, [inv('data[a]', '"<secret contents redacted>"', 'illegal base64 data')]],
    ['a custom type needs nothing', { type: 'example.com/token' }, []],
  ])('%s', (_name, extra, expected) => {
    expect(causesOf(secret(extra))).toEqual(expected);
  });

  it('keeps the type on update', () => {
    const old = secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C'), 'tls.key': b64('K') } });
    expect(causesOf(secret({ type: 'Opaque' }), old)).toEqual([inv('type', '"Opaque"', 'field is immutable')]);
    expect(causesOf(secret({ type: 'kubernetes.io/tls', data: { 'tls.crt': b64('C2'), 'tls.key': b64('K') } }), old)).toEqual([]);
  });
});
