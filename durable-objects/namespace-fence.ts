// Canonical layer: which namespaces a store refuses creates in, so a namespace deletion cannot race a
// create. The front door admits a create after reading the namespace (Active, at namespaces-store
// revision r) and passes r along; deleting a namespace marks it Terminating at revision M, then tells each
// type's store to fence it at M and empty it in one call. A create committing after the fence with r < M
// was admitted against the incarnation being deleted (or an older one) and is refused inside the write's
// own transaction; one committing before the fence is deleted with the rest. A namespace created again
// later has r > M, so it is not fenced. One row per namespace name ever deleted (table: schema.ts).

export class NamespaceFence {
  constructor(private readonly sql: SqlStorage) {}

  /** From now on, creates in `namespace` admitted at a namespace revision below `revision` are refused. */
  raise(namespace: string, revision: number): void {
    this.sql.exec(
      'INSERT INTO namespace_fences (name, revision) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET revision = max(revision, excluded.revision)',
      namespace, revision,
    );
  }

  /** True if a create admitted when `namespace` was at `admittedAt` must be refused. */
  blocks(namespace: string, admittedAt: number): boolean {
    const rows = this.sql.exec<{ revision: number }>('SELECT revision FROM namespace_fences WHERE name = ?', namespace).toArray();
    return rows.length > 0 && admittedAt < rows[0].revision;
  }
}
