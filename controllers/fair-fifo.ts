// Controllers: a first-in-first-out queue that takes turns between lanes (namespaces): shift() takes the oldest
// item of the lane whose turn it is, then that lane goes to the back of the round. With one lane it is a plain
// FIFO; with a tenant that queued 1,500 items and another that queued one, the other's item comes out second,
// not 1,501st. kube's work queues are plain FIFOs and leave fairness between tenants to API Priority and
// Fairness on the server; here the loops share one isolate with the API, so they take turns themselves.
// Every operation is O(1) (amortized).

interface Lane<T> {
  items: T[];
  head: number;
}

/** The namespace of an informer key ("ns/name"); cluster-scoped keys ("name") share the lane "". */
export function namespaceOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? '' : key.slice(0, slash);
}

export class FairFifo<T> {
  // A Map iterates in insertion order: its first lane is the one whose turn it is.
  private readonly lanes = new Map<string, Lane<T>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(lane: string, item: T): void {
    let l = this.lanes.get(lane);
    if (!l) this.lanes.set(lane, (l = { items: [], head: 0 }));
    l.items.push(item);
    this.count++;
  }

  shift(): T | undefined {
    const first = this.lanes.entries().next();
    if (first.done) return undefined;
    const [name, lane] = first.value;
    const item = lane.items[lane.head++]!;
    this.count--;
    this.lanes.delete(name);
    if (lane.head < lane.items.length) {
      if (lane.head > 64 && lane.head * 2 > lane.items.length) {
        lane.items = lane.items.slice(lane.head);
        lane.head = 0;
      }
      this.lanes.set(name, lane); // to the back of the round
    }
    return item;
  }
}
