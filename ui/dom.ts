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

/** A panel: it draws its whole state when asked. */
export interface Renderable {
  render(): void;
}

const dirty = new Set<Renderable>();
let scheduled = false;

/** Runs `panel.render()` on the next animation frame, once, however often it is asked for before then. The panel
 * itself is the key: a fresh closure per event (as panels passed before) defeated the de-duplication, and at
 * 2,500 events/s the load generator's counters were rebuilt some 40 times per frame. */
export function schedule(panel: Renderable): void {
  dirty.add(panel);
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    const work = [...dirty];
    dirty.clear();
    for (const p of work) {
      try {
        p.render();
      } catch (e) {
        reportError(e);
      }
    }
  });
}

/** A render request for `panel` that asks at most once per `intervalMs` (then on the next frame): for panels whose
 * data changes thousands of times a second, where a frame-rate redraw only costs the page its main thread. */
export function throttled(panel: Renderable, intervalMs: number): () => void {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fire = () => {
    timer = undefined;
    last = performance.now();
    schedule(panel);
  };
  return () => {
    if (timer !== undefined) return;
    const wait = last + intervalMs - performance.now();
    if (wait <= 0) fire();
    else timer = setTimeout(fire, wait);
  };
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
