/**
 * ipc/util.c: a machine's ids of one System V IPC kind (struct ipc_ids): the objects by id and the
 * index ipc_idr_alloc hands out next (cyclically from 0 on a fresh box).
 */
export class IpcIds<T extends { id: number }> {
  readonly objs = new Map<number, T>();
  next = 0;
  /** ipc_addid: the object made with the next id, registered */
  add(make: (id: number) => T): T {
    const o = make(this.next++);
    this.objs.set(o.id, o);
    return o;
  }
}

/** The ids of one IPC kind per machine, made on first use. */
export function perMachineIds<T extends { id: number }>(): (m: object) => IpcIds<T> {
  const of = new WeakMap<object, IpcIds<T>>();
  return (m) => {
    let s = of.get(m);
    if (!s) of.set(m, (s = new IpcIds<T>()));
    return s;
  };
}
