// Tooling: the kubeconfig text kubectl needs for one edgeplane server and one bearer token. Used by `npm start`
// (local HTTPS with its self-signed CA) and `npm run kubeconfig` (a deployed gateway).

export interface KubeconfigOptions {
  server: string; // https://… (client-go sends bearer tokens only over TLS)
  token: string;
  user?: string; // the kubeconfig's user entry name
  caCert?: string; // PEM; omitted for servers with a publicly trusted certificate (workers.dev, custom domains)
  namespace?: string;
  cluster?: string;
}

export function kubeconfigText(o: KubeconfigOptions): string {
  const cluster = o.cluster ?? 'edgeplane';
  const user = o.user ?? 'admin';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${cluster}`,
    '  cluster:',
    `    server: ${o.server}`,
    ...(o.caCert ? [`    certificate-authority-data: ${Buffer.from(o.caCert).toString('base64')}`] : []),
    'users:',
    `- name: ${user}`,
    '  user:',
    `    token: ${o.token}`,
    'contexts:',
    `- name: ${cluster}`,
    '  context:',
    `    cluster: ${cluster}`,
    `    user: ${user}`,
    `    namespace: ${o.namespace ?? 'default'}`,
    `current-context: ${cluster}`,
    '',
  ].join('\n');
}
