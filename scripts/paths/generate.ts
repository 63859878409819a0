/**
 * The entry model generator (issue 14 part 3; design in src/machine/paths/README.md): every recording
 * of data/recordings/ (scripts/record/FORMAT.md) turned into one table of kernel entries, each with the
 * call trees the real kernel ran for it, written to data/paths/entries.json.gz (format and loader in
 * src/machine/paths/model.ts).
 *
 *   node dist/scripts/paths/generate.js [--recordings DIR] [--out FILE]     (npm run paths)
 *
 * Keys: `sys:<name>` (a syscall, by syscall-table name), `fault` (a page fault: user mode, or taken in
 * kernel mode inside a syscall), `fork_return` (a new task's first return, schedule_tail), `schedule`
 * (the body of __schedule), `irq:<handler>` (an interrupt: __sysvec_apic_timer_interrupt,
 * __common_interrupt ...), `softirq:<action>` (one softirq action), `tail:<fn>` (a part of the return
 * to user mode: task_work_run, arch_do_signal_or_restart, switch_fpu_return ...), `work:<fn>` (a kworker's
 * work item: the tree of the work function process_one_work ran).  What the machine
 * decides is cut out of the trees (tree.ts cutTree): interrupts, __schedule bodies, kernel-mode faults,
 * softirq runs.  Each variant of a syscall carries its outcome class from the strace run (strace.ts).
 * Deterministic: the same recordings give the same bytes.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { loadIndex, loadRecording, RECORDINGS_DIR, Recording } from '../record/recording';
import { syscalls } from '../../src/kernel/syscalls';
import { TNode, shapeTree, cutTree, newCuts, Cuts, treeKey, Names, modelShape, markSwitch, countCalls } from './tree';
import { alignNames, mapTasks, straceByPid, retClass, splitArgs, straceNumber, StraceCall } from './strace';

export const MODEL_FORMAT = 1;

interface Variant { tree: TNode[]; count: number; ret: string; recs: Set<number> }
class KeyModel {
  readonly variants = new Map<string, Variant>();
  readonly outcomes: StraceCall[] = [];
  add(tree: TNode[], ret: string, count: number, rec: number): void {
    const k = `${treeKey(tree)}|${ret}`;
    let v = this.variants.get(k);
    if (!v) this.variants.set(k, (v = { tree, count: 0, ret, recs: new Set() }));
    v.count += count;
    v.recs.add(rec);
  }
}

/** Softirq actions (the callees of handle_softirqs that are an action, not its own bookkeeping). */
const ACTION = /(_action|_softirq|^rcu_core_si|^run_rebalance_domains|^blk_done_softirq|^tasklet_\w+)$/;

/** process_one_work's own calls around the work function (kernel/workqueue.c): not a work item. */
const WORKER_CALLS = new Set(['_raw_spin_unlock_irq', '_raw_spin_lock_irq', '__cond_resched', 'pwq_dec_nr_in_flight', 'pwq_activate_inactive_work', 'insert_work', 'wake_up_worker', 'find_worker_executing_work', 'move_linked_works', 'worker_clr_flags', 'worker_set_flags', 'lock_map_acquire', 'lock_map_release', 'set_work_pool_and_clear_pending']);

/**
 * What a recorded page fault did (mm/memory.c handle_pte_fault), the machine's fault kinds
 * (mm/mm.ts touch): 'swap' (do_swap_page), 'wp' (do_wp_page: a write to a present read-only page, COW),
 * 'cow' (do_fault allocating a page: a write to a private file mapping, do_cow_fault), 'file' (do_fault
 * mapping page cache pages: do_read_fault / do_shared_fault), 'anon' (do_anonymous_page: a new zeroed
 * page), '-' (none of them: the PTE was already there, a spurious or retried fault).
 */
export function faultKind(t: readonly TNode[]): string {
  if (countCalls(t, 'do_swap_page')) return 'swap';
  if (countCalls(t, 'do_wp_page')) return 'wp';
  if (countCalls(t, 'do_fault')) return countCalls(t, 'vma_alloc_folio') ? 'cow' : 'file';
  if (countCalls(t, 'vma_alloc_folio') || countCalls(t, 'do_huge_pmd_anonymous_page')) return 'anon';
  return '-';
}

/** syscall-table entry symbol ('__x64_sys_openat', '__do_sys_getpid') -> syscall name. */
function syscallNames(): Map<string, string> {
  const m = new Map<string, string>();
  for (const s of syscalls()) if (s.abi !== 'x32' && s.tableSymbol && !m.has(s.tableSymbol)) m.set(s.tableSymbol, s.name);
  return m;
}

export interface Model {
  format: number;
  generator: string;
  recordings: { name: string; command: string }[];
  functions: string[];
  /** key -> { rule: the common outcome (syscalls), v: [shape, count, ret class, recordings bitmask] } */
  keys: Record<string, { rule?: string; v: [string, number, string, number][] }>;
}

/**
 * The common outcome of a syscall (what a syscall the machine has no semantics for returns): 'E:ERRNO'
 * when most calls fail so, '=N' a constant, 'aI' the I-th argument (getrandom's count), '+' a value the
 * machine cannot know (an address), '0'.
 */
export function outcomeRule(calls: readonly StraceCall[]): string {
  const byClass = new Map<string, number>();
  for (const c of calls) { const k = retClass(c.ret); byClass.set(k, (byClass.get(k) ?? 0) + 1); }
  let best = '0', bn = -1;
  for (const [k, n] of [...byClass].sort()) if (n > bn && k !== '?') { best = k; bn = n; }
  if (best !== '+') return best;
  const pos = calls.filter((c) => retClass(c.ret) === '+');
  const vals = pos.map((c) => straceNumber(c.ret.split(' ')[0]));
  if (vals.every((v) => v === vals[0])) return `=${vals[0]}`;
  const nargs = Math.max(...pos.map((c) => splitArgs(c.args).length));
  for (let i = 0; i < nargs; i++) {
    let ok = 0;
    for (let j = 0; j < pos.length; j++) if (straceNumber(splitArgs(pos[j].args)[i] ?? '') === vals[j]) ok++;
    if (ok >= 0.9 * pos.length) return `a${i}`;
  }
  return '+';
}

export function generate(recDir = RECORDINGS_DIR): Model {
  const names = new Names();
  const keys = new Map<string, KeyModel>();
  const key = (k: string): KeyModel => { let m = keys.get(k); if (!m) keys.set(k, (m = new KeyModel())); return m; };
  const sysName = syscallNames();
  const recs = loadIndex(recDir).recordings.filter((e) => e.file !== 'system.json.gz');
  recs.sort((a, b) => (a.name < b.name ? -1 : 1));
  const addCuts = (c: Cuts, ri: number, k = 1): void => {
    for (const s of c.schedules) key('schedule').add(markSwitch(s.body), s.caller, k, ri);
    for (const f of c.faults) key('fault').add(f, `kernel|${faultKind(f)}`, k, ri);
    for (const s of c.softirqs) addSoftirq(s, ri, k);
    for (const w of c.wakeups) key('ttwu').add(w.body, w.caller, k, ri);
  };
  const addSoftirq = (kids: TNode[], ri: number, k: number): void => {
    for (const a of kids) if (a.kind === 'call' && ACTION.test(a.fn)) key(`softirq:${a.fn}`).add([a], '', k * a.rep, ri);
  };
  recs.forEach((entry, ri) => {
    const r: Recording = loadRecording(entry, recDir);
    const F = r.functions;
    // interrupts and softirqs: every shape of those kinds, as often as it ran
    r.shapes.forEach((s, id) => {
      const kind = r.shapeKinds[id];
      if (kind !== 'irq' && kind !== 'softirq') return;
      const cuts = newCuts();
      const t = cutTree(shapeTree(s, F, r.events), cuts, true);
      const n = r.shapeCounts[id];
      if (kind === 'irq') {
        const h = t.find((x) => x.kind === 'call' && x.fn !== 'irq_enter_rcu' && x.fn !== 'irq_exit_rcu');
        if (h && h.kind === 'call') key(`irq:${h.fn}`).add(t, '', n, ri);
      }
      addCuts(cuts, ri, n);
    });
    // the tasks' own entries, the syscalls labelled with their strace outcome
    const tmap = mapTasks(r);
    const st = straceByPid(r).calls;
    for (const task of r.tasks) {
      const e = task.entries;
      const trees: { nodes: TNode[]; sys: string }[] = [];
      for (let i = 0; i < e.length; i += 3) {
        const nodes = shapeTree(r.shapes[e[i + 2]], F, r.events);
        const top = nodes[0];
        let sys = '';
        if (top && top.kind === 'call' && top.fn === 'x64_sys_call' && top.kids[0]?.kind === 'call') {
          const fn = (top.kids[0] as { fn: string }).fn;
          sys = sysName.get(fn) ?? fn.replace(/^__(x64|do|se)_sys_/, '');
        }
        trees.push({ nodes, sys });
      }
      const spid = tmap.get(task.pid);
      const scalls = spid !== undefined ? st.get(spid) ?? [] : [];
      const al = alignNames(trees.map((t) => t.sys), scalls.map((c) => c.name));
      trees.forEach(({ nodes, sys }, i) => {
        const cuts = newCuts();
        // the body (what precedes the return to user mode) and the tail parts
        const ti = nodes.findIndex((n) => n.kind === 'call' && (n.fn === 'syscall_exit_to_user_mode_prepare' || n.fn === 'exit_to_user_mode_prepare'));
        const body = cutTree(ti < 0 ? nodes : nodes.slice(0, ti), cuts, true);
        const tail = ti < 0 ? [] : nodes.slice(ti);
        const top = body[0];
        let label = '';
        // an exit the trace ended in (the task had not reached do_task_dead): not a variant of the exit
        if ((sys === 'exit_group' || sys === 'exit') && countCalls(body, 'do_task_dead') === 0) return;
        if (sys) {
          const sc = al[i] >= 0 ? scalls[al[i]] : null;
          const km = key(`sys:${sys}`);
          label = sc ? sc.feat : '?';
          km.add(body, label, 1, ri);
          if (sc) km.outcomes.push(sc);
          label = `sys:${sys}|${label}`;
        } else if (top && top.kind === 'call' && (top.fn === 'lock_mm_and_find_vma' || top.fn === 'do_user_addr_fault')) {
          key('fault').add(body, `user|${faultKind(body)}`, 1, ri);
          label = 'fault';
        } else if (top && top.kind === 'call' && top.fn === 'schedule_tail') {
          key('fork_return').add(body, '', 1, ri);
          label = 'fork_return';
        } else if (top && top.kind === 'call' && top.fn === 'process_one_work') {
          // a kworker running one work item: the work function's own tree, by function
          for (const w of top.kids) if (w.kind === 'call' && !WORKER_CALLS.has(w.fn)) key(`work:${w.fn}`).add([w], '', w.rep, ri);
        }
        // the parts of the return to user mode, each as often as it ran with callees or without;
        // task_work (the fput of a close) labelled with the entry that queued it
        for (const t of tail) {
          if (t.kind !== 'call' || t.fn !== 'exit_to_user_mode_prepare') continue;
          for (const p of cutTree(t.kids, cuts)) {
            if (p.kind === 'call' && p.fn !== 'schedule') key(`tail:${p.fn}`).add(p.kids, p.fn === 'task_work_run' ? label : '', p.rep, ri);
          }
        }
        addCuts(cuts, ri);
      });
    }
  });
  const out: Model = {
    format: MODEL_FORMAT,
    generator: 'scripts/paths/generate.ts',
    recordings: recs.map((e) => ({ name: e.name, command: e.command })),
    functions: names.list,
    keys: {},
  };
  for (const k of [...keys.keys()].sort()) {
    const km = keys.get(k)!;
    const vs = [...km.variants.values()].map((v) => ({ v, shape: modelShape(v.tree, names) }));
    vs.sort((a, b) => b.v.count - a.v.count || (a.shape < b.shape ? -1 : a.shape > b.shape ? 1 : a.v.ret < b.v.ret ? -1 : 1));
    const entry: Model['keys'][string] = {
      v: vs.map(({ v, shape }) => [shape, v.count, v.ret, [...v.recs].reduce((a, i) => a + 2 ** i, 0)]),
    };
    if (k.startsWith('sys:') && km.outcomes.length) entry.rule = outcomeRule(km.outcomes);
    out.keys[k] = entry;
  }
  return out;
}

function main(): void {
  const args = process.argv.slice(2);
  const opt = (n: string, d: string): string => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
  const recDir = opt('--recordings', RECORDINGS_DIR);
  const file = opt('--out', path.join(__dirname, '..', '..', '..', 'data', 'paths', 'entries.json.gz'));
  const t0 = Date.now();
  const m = generate(recDir);
  const buf = zlib.gzipSync(Buffer.from(JSON.stringify(m)), { level: 9 });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, buf);
  const nv = Object.values(m.keys).reduce((a, k) => a + k.v.length, 0);
  process.stderr.write(`entry model: ${m.recordings.length} recordings, ${Object.keys(m.keys).length} keys, ${nv} variants, ` +
    `${m.functions.length} functions, ${buf.length} bytes -> ${path.relative(process.cwd(), file)} (${Date.now() - t0} ms)\n`);
}

if (require.main === module) main();
