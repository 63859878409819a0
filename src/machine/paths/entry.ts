/**
 * Kernel entries run from the entry model (paths/model.ts): a syscall's recorded trees (`%sys` of the
 * syscall path pushes `SYSFN %sys_impl %sys_body`: the syscall function, its semantics, then the
 * variant the semantics' outcome and the call's features choose), and the cut points of recorded trees
 * (`^` a schedule, `~` a page fault taken in kernel mode, `&` softirqs).
 *
 * A syscall with no semantics of its own (`Semantics.syscall`) still runs its recorded tree and returns
 * the recordings' common outcome (the key's rule), so programs go on while its semantics are written.
 */
import type { MachineCore } from '../core/machine';
import type { Cpu } from '../include/cpu';
import type { Env, CompiledPath } from '../include/kstack';
import type { OpenFile } from '../include/fs';
import { fdOf } from '../include/fdtable';
import { syscallByNr } from '../../kernel/syscalls';
import { Semantics, syscallImpl, hookNamed, anchorsOf } from './semantics';
import { pushPath, H_CONT, H_PUSHED } from './kexec';
import { OP_HOOK, OP_RET, OP_END, OP_TP, hookIndex, tpIndex, path } from './dsl';
import { TASK_RUNNING, TASK_DEAD } from '../include/sched';
import type { Task } from '../include/sched';
import { modelKey, chooseVariant, syscallInner, syscallFn, failingInner, modelPath, treeFeatureCount, treeFeatureLabel, ModelKey, variantAt, variantCount } from './model';
import { argFeatures, withOutcome, FdKind } from './features';
import { zapMarkAccessed } from '../mm/filemap';
import { teardownFreedPages } from '../mm/mm';

export const modelEntry = new Semantics<MachineCore>('paths/entry');

/** The kind of file an open file of the machine is (paths/features.ts FdKind). */
export function fileKind(f: OpenFile | null): FdKind {
  if (!f) return '-';
  switch (f.kind) {
    // a directory on procfs is `proc`, as the recordings label it (features.ts fileKindOfPath: the
    // path class comes before O_DIRECTORY), so listing /proc draws the recorded proc readdir trees
    case 'dir': return f.inode?.fs === 'proc' ? 'proc' : 'dir';
    case 'pipe_r': case 'pipe_w': return 'pipe';
    case 'sock': return 'sock';
    case 'console': return 'tty';
    case 'proc': return f.inode?.fs === 'sysfs' ? 'sys' : f.inode?.procKind || 'proc';
    default: break;
  }
  const ino = f.inode;
  if (!ino) return 'dev';
  if (ino.isDir) return 'dir';
  switch (ino.dev) {
    case 'null': return 'null';
    case 'zero': return 'zero';
    case 'urandom': case 'random': return 'rand';
    // the serial port: the recordings' terminal (their stdout and stderr, /dev/ttyS0: features.ts 'tty')
    case 'tty': case 'ttyS': case 'console': return 'tty';
    default: break;
  }
  if (ino.fs === 'tmpfs') return 'tmp';
  if (ino.fs === 'proc') return 'proc';
  if (ino.fs === 'sysfs') return 'sys';
  if (ino.isReg) return 'reg';
  return 'dev';
}

/** The syscall-table name of the call in `e` (the machine's name when it has no number). */
function tableName(e: Env): string {
  return (e.nr >= 0 ? syscallByNr(e.nr)?.name : undefined) ?? e.name;
}

interface SysModel { key: ModelKey; prefix: CompiledPath }
const sysModels = new Map<string, SysModel | null>();

/**
 * The program a syscall runs from the model (`SYSFN %sys_impl %sys_body`) and its key, or null when
 * no recording has the call.
 */
export function syscallModelPath(e: Env): { path: CompiledPath; key: ModelKey } | null {
  const name = tableName(e);
  let sm = sysModels.get(name);
  if (sm === undefined) {
    const key = modelKey(`sys:${name}`);
    sm = null;
    if (key && variantCount(key)) {
      const fn = syscallFn(variantAt(key, 0));
      if (fn >= 0) {
        // the hooks subsystems attach to the syscall function itself (Semantics.at: rseq(2)'s registration)
        const anchors = anchorsOf(fn);
        const pre = anchors.filter((a) => a.where === 'entry').flatMap((a) => [OP_HOOK, hookIndex(a.hook)]);
        const post = anchors.filter((a) => a.where === 'exit').flatMap((a) => [OP_HOOK, hookIndex(a.hook)]);
        const code = [fn, ...pre, OP_HOOK, hookIndex('sys_impl'), OP_HOOK, hookIndex('sys_body'), OP_HOOK, hookIndex('flush_wakes'), ...post, OP_RET, OP_END];
        sm = { key, prefix: { name: `sys:${name}`, code: Int32Array.from(code) } };
      }
    }
    sysModels.set(name, sm);
  }
  return sm ? { path: sm.prefix, key: sm.key } : null;
}

/** What a syscall without semantics returns: the recordings' common outcome (generate.ts outcomeRule). */
function ruleResult(rule: string | undefined, e: Env): number {
  if (!rule || rule === '0' || rule === '+' || rule === '?') return 0;
  if (rule.startsWith('E:')) return -(errnoByName()[rule.slice(2)] ?? 22);
  if (rule[0] === '=') return Number(rule.slice(1));
  if (rule[0] === 'a') return Number(e.a[Number(rule.slice(1))] ?? 0);
  return 0;
}
let ERRNO: Record<string, number> | null = null;
/** errno names' numbers, made when a recorded outcome first names one (not by every start) */
function errnoByName(): Record<string, number> {
  if (ERRNO) return ERRNO;
  ERRNO = {};
  const { errnoName } = require('../../kernel/errno') as typeof import('../../kernel/errno');
  for (let i = 1; i < 600; i++) ERRNO[errnoName(i)] = i;
  return ERRNO;
}

/**
 * Syscalls whose semantics are a hook of their former template (the work of the call, nothing pushed
 * but a sleep): run as the implementation when the recorded trees replace the template.
 */
const IMPL_HOOKS: Record<string, string> = { newfstatat: 'stat', clock_nanosleep: 'nanosleep', munmap: 'unmap', socket: 'sock_new', close: 'close_recorded', connect: 'connect_enoent' };

/**
 * The pages of the address space an exec (the old one) or an exit tears down, before the call's
 * semantics replace or release it (mm/rmap.ts `Mm.mapped`): none when another user keeps it mapped;
 * undefined when the machine did not build it page by page (a service started at boot, a fork of one).
 */
function teardownPages(t: Task): number | undefined {
  const mm = t.proc.mm;
  // a thread exiting beside others: the last one to exit tears the address space down
  if (t.proc.threads.some((o) => o !== t && o.state !== TASK_DEAD)) return undefined;
  if (!mm || mm.users > 1) return 0;
  return mm.mapped > 0 ? mm.mapped : undefined;
}
/**
 * The pages that teardown frees (mm/mm.ts teardownFreedPages: its own anonymous pages and page tables),
 * where teardownPages gives the pages it unmaps; undefined when it frees none or the machine did not build it.
 */
function teardownFrees(t: Task): number | undefined {
  const mm = t.proc.mm;
  return mm && teardownPages(t) ? teardownFreedPages(mm) : undefined;
}
const TEARDOWN = new Set(['execve', 'exit_group', 'exit']);
/**
 * What an exit's teardown finds (paths/model.ts TREE_FEATURES 'sys:exit_group'): swap entries in the
 * address space it zaps (zap_pte_range's free_swap_and_cache per swapped-out page).
 */
function exitTreeFeatures(t: Task): string[] {
  const mm = t.proc.mm;
  return mm && mm.swapents > 0 && teardownPages(t) !== 0 ? ['swp'] : [];
}

modelEntry.hook('sys_impl', (m, c, t, e) => {
  e.recorded = true;
  if (e.fargs === undefined) e.fargs = argFeatures(tableName(e), e.a, (fd) => fileKind(fdOf(t, fd)), t.proc.execName || t.proc.exe);
  if (TEARDOWN.has(e.name)) {
    e.zapPages = teardownPages(t);
    e.zapFrees = teardownFrees(t);
    if (e.name !== 'execve') e.treeFeat = exitTreeFeatures(t);
    // the zap marks the file pages it unmaps accessed (mm/filemap.ts zapMarkAccessed): the pages it
    // activates are the mm_lru_activate events its tree fires
    if (t.proc.mm && e.zapPages !== 0 && !t.proc.threads.some((o) => o !== t && o.state !== TASK_DEAD)) e.lruActivate = zapMarkAccessed(t.proc.mm);
  }
  const f = syscallImpl(e.name) ?? (IMPL_HOOKS[e.name] !== undefined ? hookNamed(IMPL_HOOKS[e.name]) : undefined);
  if (!f) { e.ret = ruleResult((e.model as ModelKey).rule, e); return H_CONT; }
  return f(m, c, t, e);
});
/**
 * Failures no recording shows, by syscall and outcome: the recorded tree of a success cut short where
 * the failure returns ([the function that fails, the one returning the error]; truncateAtFailure).
 * A shell's exec of a missing file: do_open_execat fails, bprm_execve returns -ENOENT.
 */
const FAILS: Record<string, [string, string]> = {
  'sys:execve|E:ENOENT': ['do_open_execat', 'bprm_execve'],
  'sys:execve|E:ENOEXEC': ['load_elf_binary', 'bprm_execve'],
};

modelEntry.hook('sys_body', (m, _c, t, e) => {
  const k = e.model as ModelKey;
  const name = tableName(e);
  // exit and exit_group never return (outcome '?' as strace shows them) and always end asleep in do_task_dead
  const noReturn = name === 'exit_group' || name === 'exit';
  const feat = withOutcome(name, e.fargs as string, !noReturn && typeof e.ret === 'number' ? e.ret : null);
  e.sysFeat = feat;
  // the features read off the trees (paths/model.ts TREE_FEATURES), as the call's semantics found them
  // (e.treeFeat: the names of those present, a read's readahead, a direct I/O), first; a call that sleeps in its tree for I/O it
  // started (e.ioBlocked) takes the variants that slept
  const nt = treeFeatureCount(k.name);
  const q = nt ? `${treeFeatureLabel(k.name, (e.treeFeat as string[] | undefined) ?? [])}|${feat}` : feat;
  // (e.zapPages: the pages the call's tree unmaps, page_remove_rmap per page; or the calls of e.zapFn it
  // makes, filemap_unaccount_folio per folio a truncate drops: mm/filemap.ts truncating)
  const v = chooseVariant(k, q, noReturn || e.slept === true || e.ioBlocked === true, m.pathRand.next(), e.zapPages as number | undefined,
    typeof e.zapFn === 'string' ? e.zapFn : undefined, e.zapFrees as number | undefined);
  const out = feat.slice(0, feat.indexOf('|') >>> 0);
  // (e.treeCut: the semantics cut the tree short themselves, [function, ancestor]: what follows the function
  // up to the ancestor is work the machine does its own way: fs/sync.ts)
  const fail = (e.treeCut as [string, string] | undefined) ?? (v.feat[nt] !== out ? FAILS[`${k.name}|${out}`] : undefined);
  pushPath(t.ks, fail ? failingInner(k, v, fail[0], fail[1]) : syscallInner(k, v).code, e);
  return H_PUSHED;
});

/**
 * The work run on the way back to user mode after a syscall (task_work_run: the deferred fput of a close,
 * of a failed open's struct file): the recordings label each with the syscall it followed, as
 * `sys:NAME|<the syscall's features>`; the machine's are the syscall's own (none after a template's call),
 * after the tree features its semantics found (`e.tailFeat`: paths/model.ts TREE_FEATURES, an ext4
 * release that flushes, fs/ext4.ts ext4ReleaseFile).
 */
modelEntry.features('tail:task_work_run', (_m, _c, _t, e) => {
  const tf = treeFeatureLabel('tail:task_work_run', (e.tailFeat as string[] | undefined) ?? []);
  return typeof e.sysFeat === 'string' ? `${tf}|${(e.model as ModelKey).name}|${e.sysFeat}` : tf;
});

/**
 * The recorded do_group_exit of the program `t` runs (the callees of an exit_group variant chosen for
 * its program, as a fatal signal's get_signal calls it), or null when no recording has an exit.
 */
export function groupExitPath(m: MachineCore, t: Task): CompiledPath | null {
  const k = modelKey('sys:exit_group');
  if (!k || !variantCount(k)) return null;
  const feat = withOutcome('exit_group', argFeatures('exit_group', [], () => '-', t.proc.execName || t.proc.exe), null);
  const q = `${treeFeatureLabel(k.name, exitTreeFeatures(t))}|${feat}`;
  return syscallInner(k, chooseVariant(k, q, true, m.pathRand.next(), teardownPages(t), undefined, teardownFrees(t))).code;
}

/** Run a variant of model key `key` (features from the key's feature function, else ''), pushed on `c.ks`. */
export function pushModel(m: MachineCore, c: Cpu, t: Task, e: Env, key: string, feat?: string): boolean {
  const p = modelPath(m, c, t, e, key, feat);
  if (p) pushPath(c.ks, p, e);
  return p !== null;
}

// cut points of recorded trees
/** A recorded schedule() ('^'): the task sleeps here when its state says so (the path set it, or it is dying). */
modelEntry.hook('sched_point', (_m, c, t, e) => {
  if (t.state === TASK_RUNNING || c.ctx.context !== 0) return H_CONT;
  pushPath(c.ks, schedulePath ?? (schedulePath = path('__schedule')), e);
  return H_PUSHED;
});
let schedulePath: CompiledPath | null = null;
modelEntry.hook('softirq_point', () => H_CONT);
/**
 * A user page fault's features (the `fault` key's variants are labelled so by scripts/paths/generate.ts
 * faultKind): the machine's fault kind (mm/mm.ts touch) as the real kernel's handle_pte_fault branches:
 * a write to a private file mapping is do_cow_fault ('cow'), a read of anonymous memory maps the zero
 * page without allocating ('-').
 */
modelEntry.features('fault', (_m, _c, _t, e) => {
  const k = e.kind as string;
  const r = e.region as { file?: unknown; shared?: boolean } | undefined;
  // what the fault's plan (mm/mm.ts faultPlan) says the tree does: reclaim, swap read, huge page
  const tf = treeFeatureLabel('fault', (e.treeFeat as string[] | undefined) ?? []);
  if (k === 'anon') return `${tf}|${r?.file && !r.shared ? 'user|cow' : e.write === false ? 'user|-' : 'user|anon'}`;
  return `${tf}|user|${k}`;
});
/**
 * A page fault taken in kernel mode ('~': a copy to or from user memory): what the machine knows of it is
 * the address space, so a swap-in when the process has pages out on swap, else a new anonymous page
 * (the common kernel fault of the recordings: a buffer the call fills).  The buffer a syscall copies
 * to or from is faulted in by the first such call of the address space (dd's first read into its
 * buffer); later calls of the same syscall find it mapped and take no fault, as on the real kernel
 * (the recorded variants of a call that faulted keep the rest of their tree).
 */
const kfaulted = new WeakMap<object, Set<string>>();
modelEntry.hook('kfault_point', (m, c, t, e) => {
  if (e.nr >= 0 && e.kfault !== true) {
    const as: object = t.proc.mm ?? t.proc;
    let seen = kfaulted.get(as);
    if (!seen) kfaulted.set(as, (seen = new Set()));
    if (seen.has(e.name)) return H_CONT;
    seen.add(e.name);
    e.kfault = true;
  }
  // exc_page_fault (noinstr) traces page_fault_kernel first; the tree's last call is the mmap_read_unlock
  // (up_read) that traces mmap_lock_released (as for a user fault: templates/mm.ts page_fault)
  const swap = (t.proc.mm?.swapents ?? 0) > 0;
  if (!pushKernelFault(m, c, t, e, `${treeFeatureLabel('fault', swap ? ['sio'] : [])}|kernel|${swap ? 'swap' : 'anon'}`)) return H_CONT;
  // mm_account_fault: the task's fault counts (a swap-in that read the device is major)
  if (swap) t.majFlt++; else t.minFlt++;
  return H_PUSHED;
});
/**
 * A page fault taken in kernel mode inside the entry `e` (a syscall's copy to or from user memory): the
 * page_fault_kernel event, the fault's recorded tree for features `feat` (the `fault` key's), the
 * mmap_lock release; false when no recording has a fault.  `retry`: the same fault taken again after a
 * VM_FAULT_RETRY (do_user_addr_fault's retry: exc_page_fault, and its event, was entered once).
 */
export function pushKernelFault(m: MachineCore, c: Cpu, t: Task, e: Env, feat: string, retry = false): boolean {
  const p = modelPath(m, c, t, e, 'fault', feat);
  if (!p) return false;
  pushPath(c.ks, KFAULT_EXIT, e);
  pushPath(c.ks, p, e);
  if (!retry) pushPath(c.ks, KFAULT_ENTRY, e);
  return true;
}
const KFAULT_ENTRY: CompiledPath = { name: 'kernel_fault_entry', code: Int32Array.of(OP_TP, tpIndex('exceptions:page_fault_kernel'), OP_END) };
const KFAULT_EXIT: CompiledPath = { name: 'kernel_fault_exit', code: Int32Array.of(OP_TP, tpIndex('mmap_lock:mmap_lock_released'), OP_END) };
