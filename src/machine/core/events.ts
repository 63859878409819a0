/** The machine's one event queue: a binary heap ordered by (time, prio, insertion order). */
export interface QEvent {
  t: number;
  prio: number;
  seq: number;
  fire: () => void;
  cancelled: boolean;
}

export class EventQueue {
  private h: QEvent[] = [];
  private seq = 0;
  get size(): number {
    return this.h.length;
  }
  push(t: number, fire: () => void, prio = 0): QEvent {
    const e: QEvent = { t, prio, seq: this.seq++, fire, cancelled: false };
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
    return e;
  }
  peek(): QEvent | undefined {
    while (this.h.length && this.h[0].cancelled) this.pop();
    return this.h[0];
  }
  pop(): QEvent | undefined {
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

function less(a: QEvent, b: QEvent): boolean {
  return a.t < b.t || (a.t === b.t && (a.prio < b.prio || (a.prio === b.prio && a.seq < b.seq)));
}
