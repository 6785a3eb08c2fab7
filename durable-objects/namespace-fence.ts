// Canonical layer: which namespaces a store refuses creates in, so a namespace deletion cannot race a
// create. The front door admits a create after reading the namespace (Active, at namespaces-store
// revision r) and passes r along; deleting a namespace marks it Terminating at revision M, then tells each
// type's store to fence it at M and empty it in one call. A create committing after the fence with r < M
// was admitted against the incarnation being deleted (or an older one) and is refused inside the write's
// own transaction; one committing before the fence is deleted with the rest. A namespace created again
// later has r > M, so it is not fenced. One row per namespace name ever deleted (table: schema.ts).

import { ByteLru } from '../core/byte-lru';

// Every create asks; a SQL query for it cost as much as the create's own three inserts (bench/profile.ts
// writes-64), so answers are remembered: the fence is raised only here, so the copy never goes stale. Bounded
// in bytes (names come from requests); 0 stands for "no fence".
const REMEMBERED_BYTES = 256 * 1024;

export class NamespaceFence {
  private readonly known = new ByteLru<number>(REMEMBERED_BYTES, 8);

  constructor(private readonly sql: SqlStorage) {}

  /** From now on, creates in `namespace` admitted at a namespace revision below `revision` are refused. */
  raise(namespace: string, revision: number): void {
    this.sql.exec(
      'INSERT INTO namespace_fences (name, revision) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET revision = max(revision, excluded.revision)',
      namespace, revision,
    );
    this.known.delete(namespace);
  }

  /** True if a create admitted when `namespace` was at `admittedAt` must be refused. */
  blocks(namespace: string, admittedAt: number): boolean {
    let fence = this.known.get(namespace);
    if (fence === undefined) {
      const rows = this.sql.exec<{ revision: number }>('SELECT revision FROM namespace_fences WHERE name = ?', namespace).toArray();
      fence = rows.length > 0 ? rows[0].revision : 0;
      this.known.set(namespace, fence);
    }
    return admittedAt < fence;
  }
}
