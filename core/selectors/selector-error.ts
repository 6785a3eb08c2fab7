// Core: the error a malformed label or field selector raises. Its message is the exact text kube-apiserver
// puts in the 400 BadRequest for that selector, so handlers pass it straight to badRequest().

export class SelectorError extends Error {
  override readonly name = 'SelectorError';
}
