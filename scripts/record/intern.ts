/** A string table: each distinct string gets a dense id in first-seen order. */
export class Interner {
  readonly names: string[] = [];
  private readonly ids = new Map<string, number>();

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.ids.set(name, id);
    }
    return id;
  }

  has(name: string): boolean { return this.ids.has(name); }

  /** Replace the table by `names` (in that order). */
  reset(names: readonly string[]): void {
    this.names.length = 0;
    this.ids.clear();
    for (const n of names) this.id(n);
  }
  get size(): number { return this.names.length; }
}

/** Add n to a counter map. */
export function bump<K>(m: Map<K, number>, k: K, n = 1): void {
  m.set(k, (m.get(k) ?? 0) + n);
}
