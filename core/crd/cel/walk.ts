// Core: the one walk over a cel-js expression tree, for the scans that read a compiled expression (identifiers and
// functions used, constant regex patterns, field selections type-checked against a schema). Iterative: an
// expression nests as deep as its source allows.

/** A node of cel-js's AST: an operator and its arguments (a name, a literal, child nodes). */
export interface CelNode {
  op?: unknown;
  args?: unknown;
  pos?: number;
}

/**
 * Visits every node under `ast`, depth first; `visit` answers what to walk under a node next (a node or a list of
 * them — its `args` for most) or undefined for nothing.
 */
export function walkCel(ast: unknown, visit: (node: CelNode) => unknown): void {
  const stack: unknown[] = [ast];
  while (stack.length) {
    const n = stack.pop();
    if (Array.isArray(n)) {
      for (const x of n) stack.push(x);
      continue;
    }
    if (!n || typeof n !== 'object') continue;
    const next = visit(n as CelNode);
    if (next !== undefined) stack.push(next);
  }
}
