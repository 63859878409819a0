/**
 * System call entry and exit as the `syscall` path runs them (arch/x86/entry/common.c
 * do_syscall_64, x64_sys_call): `%sys` continues with the path of the call (`sys_NAME`, else
 * `sys_generic`), `%impl` runs the implementation the call's subsystem registered
 * (`Semantics.syscall`; none: ENOSYS), `%sysret` hands the result back to the program; the
 * raw_syscalls tracepoints' arguments; `?sigpending` on the way out (exit_to_user_mode_loop).
 */
import type { MachineCore } from '../core/machine';
import { Semantics, syscallImpl } from './semantics';
import { pushPath, H_CONT, H_PUSHED } from './kexec';
import { pathNames, path, CompiledPath } from './dsl';

export const syscallEntry = new Semantics<MachineCore>('paths/syscall');

const sysPaths = new Set<string>();
function hasPath(n: string): boolean {
  if (!sysPaths.size) for (const p of pathNames()) sysPaths.add(p);
  return sysPaths.has(n);
}
/** syscall name -> its compiled path (sys_NAME, else sys_generic): resolved once per name */
const sysPathOf = new Map<string, CompiledPath>();
syscallEntry.hook('sys', (m, c, t, e) => {
  let cp = sysPathOf.get(e.name);
  if (cp === undefined) {
    const p = `sys_${e.name}`;
    cp = path(hasPath(p) ? p : 'sys_generic');
    sysPathOf.set(e.name, cp);
  }
  pushPath(t.ks, cp, e);
  return H_PUSHED;
});
syscallEntry.hook('sysret', (_m, _c, t, e) => {
  t.lastResult = { ret: e.ret, data: e.data as Uint8Array | undefined, info: e.info as Record<string, unknown> | undefined };
  return H_CONT;
});
syscallEntry.cond('sigpending', (_m, _c, t) => (t.sigPending & ~t.sigBlocked) !== 0);
syscallEntry.tpArgs('sys_enter', (_m, _c, t, e) => [{ ip: 0, args: e.a, orig_ax: e.nr, task: t }, e.nr]);
syscallEntry.tpArgs('sys_exit', (_m, _c, t, e) => [{ ip: 0, args: e.a, ax: e.ret, orig_ax: e.nr, task: t }, e.ret]);
syscallEntry.hook('impl', (m, c, t, e) => {
  const f = syscallImpl(e.name);
  if (!f) { e.ret = -38; return H_CONT; } // ENOSYS
  return f(m, c, t, e);
});
