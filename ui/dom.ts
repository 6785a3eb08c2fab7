// Console: the few DOM helpers the panels share, and the frame scheduler: panels mark themselves dirty on
// events and render at most once per animation frame, however many events arrive.

type Attrs = Record<string, string | number | boolean | undefined | ((ev: Event) => void)>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') node.addEventListener(k.replace(/^on/, ''), v);
    else if (k === 'text') node.textContent = String(v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) node.append(c);
  return node;
}

const dirty = new Set<() => void>();
let scheduled = false;

/** Runs `render` on the next animation frame, once, however often it is asked for before then. */
export function schedule(render: () => void): void {
  dirty.add(render);
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    const work = [...dirty];
    dirty.clear();
    for (const r of work) {
      try {
        r();
      } catch (e) {
        reportError(e);
      }
    }
  });
}

export function reportError(e: unknown): void {
  const debug = (window as unknown as { __edgeplane?: { lastError?: string } }).__edgeplane;
  if (debug) debug.lastError = (e as Error)?.message ?? String(e);
}

export function age(from: string | undefined, now = Date.now()): string {
  if (!from) return '';
  const s = Math.max(0, Math.floor((now - Date.parse(from)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

/** A fixed-size ring buffer, newest last. */
export class Ring<T> {
  private items: T[] = [];
  private start = 0;
  constructor(readonly capacity: number) {}

  push(v: T): void {
    if (this.items.length < this.capacity) this.items.push(v);
    else {
      this.items[this.start] = v;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** Newest first; at most `limit` of them. */
  newest(limit = this.items.length): T[] {
    const out: T[] = [];
    const end = Math.max(0, this.items.length - limit);
    for (let i = this.items.length - 1; i >= end; i--) out.push(this.items[(this.start + i) % this.items.length]!);
    return out;
  }

  get size(): number {
    return this.items.length;
  }

  clear(): void {
    this.items = [];
    this.start = 0;
  }
}
