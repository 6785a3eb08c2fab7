// Canonical layer: the storage key of an object. Keys sort as namespace/name, which is the order
// kube-apiserver lists in and what continue tokens point into.

export function objectKey(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

/** Keys of one namespace share this prefix; '' selects every key. */
export function namespacePrefix(namespace: string): string {
  return namespace ? `${namespace}/` : '';
}
