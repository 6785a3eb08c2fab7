// Core (server-side apply): a set of field paths, as structured-merge-diff's fieldpath.Set — a trie whose
// nodes are path elements, each owned itself ("member") and/or a parent of owned paths. Children are
// keyed by the element's canonical text, so every operation is linear in the sizes of the sets; order
// (kube's, compareElements) matters only when a set is written out or iterated.

import { compareElements, type PathElement } from './path-element';

export interface SetNode {
  readonly pe: PathElement;
  member: boolean;
  children?: FieldSet;
}

export class FieldSet {
  readonly nodes = new Map<string, SetNode>();

  static of(...paths: PathElement[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  empty(): boolean {
    return this.nodes.size === 0;
  }

  /** Adds `path` (the empty path is ignored, as SMD does). */
  insert(path: readonly PathElement[]): void {
    if (path.length === 0) return;
    let set: FieldSet = this;
    for (let i = 0; ; i++) {
      const pe = path[i];
      let node = set.nodes.get(pe.text);
      if (!node) {
        node = { pe, member: false };
        set.nodes.set(pe.text, node);
      }
      if (i === path.length - 1) {
        node.member = true;
        return;
      }
      set = node.children ??= new FieldSet();
    }
  }

  has(path: readonly PathElement[]): boolean {
    let set: FieldSet | undefined = this;
    for (let i = 0; i < path.length && set; i++) {
      const node: SetNode | undefined = set.nodes.get(path[i].text);
      if (!node) return false;
      if (i === path.length - 1) return node.member;
      set = node.children;
    }
    return false;
  }

  /** The subset under `pe` (Set.WithPrefix), empty if none. */
  withPrefix(pe: PathElement): FieldSet {
    return this.nodes.get(pe.text)?.children ?? EMPTY;
  }

  hasMember(pe: PathElement): boolean {
    return this.nodes.get(pe.text)?.member === true;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children?.clone() });
    return out;
  }

  union(other: FieldSet): FieldSet {
    const out = this.clone();
    out.addAll(other);
    return out;
  }

  /** Adds every path of `other` to this set, in place. */
  addAll(other: FieldSet): void {
    for (const [k, o] of other.nodes) {
      const n = this.nodes.get(k);
      if (!n) {
        this.nodes.set(k, { pe: o.pe, member: o.member, children: o.children?.clone() });
        continue;
      }
      n.member ||= o.member;
      if (o.children) {
        if (n.children) n.children.addAll(o.children);
        else n.children = o.children.clone();
      }
    }
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o) continue;
      const children = n.children && o.children ? n.children.intersection(o.children) : undefined;
      const member = n.member && o.member;
      if (member || (children && !children.empty())) out.nodes.set(k, { pe: n.pe, member, children: children?.empty() ? undefined : children });
    }
    return out;
  }

  /** Whether some path is a member of both sets (then `difference` changes this set). */
  overlaps(other: FieldSet): boolean {
    const [small, large] = this.nodes.size <= other.nodes.size ? [this, other] : [other, this];
    for (const [k, n] of small.nodes) {
      const o = large.nodes.get(k);
      if (!o) continue;
      if (n.member && o.member) return true;
      if (n.children && o.children && n.children.overlaps(o.children)) return true;
    }
    return false;
  }

  /** Paths of this set not in `other` (members and children are subtracted separately, as SMD does). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o) {
        out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children?.clone() });
        continue;
      }
      const member = n.member && !o.member;
      let children = n.children;
      if (children) children = o.children ? children.difference(o.children) : children.clone();
      if (member || (children && !children.empty())) out.nodes.set(k, { pe: n.pe, member, children: children?.empty() ? undefined : children });
    }
    return out;
  }

  /** Removes every path that has a prefix (or is) a member of `other` (Set.RecursiveDifference). */
  recursiveDifference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (o?.member) continue;
      if (!o) {
        out.nodes.set(k, { pe: n.pe, member: n.member, children: n.children?.clone() });
        continue;
      }
      const children = n.children && o.children ? n.children.recursiveDifference(o.children) : n.children?.clone();
      if (n.member || (children && !children.empty())) out.nodes.set(k, { pe: n.pe, member: n.member, children: children?.empty() ? undefined : children });
    }
    return out;
  }

  /** The nodes in kube's order. */
  sorted(): SetNode[] {
    return [...this.nodes.values()].sort((a, b) => compareElements(a.pe, b.pe));
  }

  /** Every member path, in kube's order (Set.Iterate: this level's members, then each child's). */
  paths(): PathElement[][] {
    const out: PathElement[][] = [];
    const walk = (s: FieldSet, prefix: PathElement[]) => {
      const nodes = s.sorted();
      for (const n of nodes) if (n.member) out.push([...prefix, n.pe]);
      for (const n of nodes) if (n.children) walk(n.children, [...prefix, n.pe]);
    };
    walk(this, []);
    return out;
  }

  size(): number {
    let n = 0;
    for (const node of this.nodes.values()) n += (node.member ? 1 : 0) + (node.children?.size() ?? 0);
    return n;
  }

  equals(other: FieldSet): boolean {
    if (this.nodes.size !== other.nodes.size) return false;
    for (const [k, n] of this.nodes) {
      const o = other.nodes.get(k);
      if (!o || o.member !== n.member) return false;
      const a = n.children ?? EMPTY;
      const b = o.children ?? EMPTY;
      if (!a.equals(b)) return false;
    }
    return true;
  }
}

const EMPTY = new FieldSet();
