/**
 * The engine's own discrete-event queue (when no simulated machine lends it one): events by
 * (time, priority, scheduling order) in a binary heap.
 */
export interface Event {
  t: number;
  /** tie-break among events at the same time (registration order of timers) */
  prio: number;
  seq: number;
  fire: () => void;
}

/** Binary heap of events by (time, sequence). */
export class EventQueue {
  private h: Event[] = [];
  private seq = 0;
  get size(): number {
    return this.h.length;
  }
  push(t: number, fire: () => void, prio = 0): void {
    const e = { t, prio, seq: this.seq++, fire };
    const h = this.h;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (less(h[p], e)) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = e;
  }
  peek(): Event | undefined {
    return this.h[0];
  }
  pop(): Event | undefined {
    const h = this.h;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= h.length) break;
        const r = l + 1;
        const c = r < h.length && less(h[r], h[l]) ? r : l;
        if (less(last, h[c])) break;
        h[i] = h[c];
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
  clear(): void {
    this.h = [];
  }
}
function less(a: Event, b: Event): boolean {
  return a.t < b.t || (a.t === b.t && (a.prio < b.prio || (a.prio === b.prio && a.seq < b.seq)));
}
