/**
 * The function_graph converter: tracefs `trace` text (options funcgraph-abstime, -cpu, -proc,
 * -duration, -tail, -irqs) to per-task kernel entries over deduplicated path shapes (FORMAT.md).
 *
 * Call trees are rebuilt per task (not per CPU: a task that migrates continues its stack on the
 * other CPU; interrupts and softirqs run on the interrupted task's stack and are labelled with it).
 * Interrupts (`irq_enter_rcu ... irq_exit_rcu`, the entry code itself is noinstr and never traced)
 * and softirqs (`__do_softirq`) become shapes of their own, referenced with `@S` where they ran.
 * A user task's kernel entry is its run of top-level calls up to and including
 * `exit_to_user_mode_prepare` (the return to user mode: a syscall, a page fault, an interrupt of user
 * mode); a task that never returns to user mode (kernel threads, idle) has one entry per top-level call.
 */
import { Interner, bump } from './intern';
import { callToken, joinSiblings } from './shape';

interface Frame { fn: number; name: string; children: string[]; irqStart: number; ts: number }

interface TaskState {
  key: string;
  pid: number;
  comm: string;
  active: boolean;
  stack: Frame[];
  /** top-level calls of the entry in progress */
  top: Frame;
  topTimes: number[];
  topCpus: number[];
  userland: boolean;
  entries: number[];
  parent: number;
  execs: string[];
  exited: boolean;
}

export interface GraphTask {
  pid: number;
  comm: string;
  parent: number;
  execs: string[];
  /** flat [startUs, cpu, shape, ...] relative to the workload's start */
  entries: number[];
}

export interface GraphResult {
  tasks: GraphTask[];
  /** per-function calls and inclusive time (ns) of the kept tasks */
  calls: Map<number, number>;
  timeNs: Map<number, number>;
  /** calls per shape id (entries and @ references) */
  shapeUses: Map<number, number>;
  lost: number;
  /** module functions seen (name -> module) */
  modules: Map<string, string>;
  startTs: number;
  endTs: number;
  lines: number;
}

export interface GraphOptions {
  /** the task whose execve starts the workload (its earlier activity is dropped); null: keep all tasks */
  rootPid: number | null;
  functions: Interner;
  shapes: Interner;
  events: Interner;
  /** shape id -> kind ('irq', 'softirq', 'entry'), filled as shapes are made */
  shapeKinds: Map<number, string>;
}

const LINE = /^\s*(\d+\.\d+) \|\s+(\d+)\)\s+(.*?)\s*\|\s*(?:[!#*@$+]\s*)?(?:([\d.]+) us)?\s*\|(.*)$/;
const IRQ_ENTER = 'irq_enter_rcu';
const IRQ_EXIT = 'irq_exit_rcu';
const SOFTIRQ = '__do_softirq';
const USER_RETURN = 'exit_to_user_mode_prepare';
const EXECVE = new Set(['__x64_sys_execve', '__x64_sys_execveat']);

export class GraphConverter {
  private tasks = new Map<string, TaskState>();
  private activePids = new Set<number>();
  private t0 = -1;
  readonly res: GraphResult = { tasks: [], calls: new Map(), timeNs: new Map(), shapeUses: new Map(), lost: 0, modules: new Map(), startTs: -1, endTs: -1, lines: 0 };

  constructor(private o: GraphOptions) {}

  private task(proc: string, cpu: number): TaskState {
    const dash = proc.lastIndexOf('-');
    const pid = Number(proc.slice(dash + 1));
    const key = pid === 0 ? `0/${cpu}` : String(pid);
    let t = this.tasks.get(key);
    if (!t) {
      const active = this.o.rootPid === null || this.activePids.has(pid);
      t = { key, pid, comm: proc.slice(0, dash), active, stack: [], top: this.frame(-1, ''), topTimes: [], topCpus: [],
        userland: false, entries: [], parent: -1, execs: [], exited: false };
      this.tasks.set(key, t);
    }
    return t;
  }

  private frame(fn: number, name: string, ts = 0): Frame { return { fn, name, children: [], irqStart: -1, ts }; }

  private shape(text: string, kind: string): number {
    const id = this.o.shapes.id(text);
    if (!this.o.shapeKinds.has(id)) this.o.shapeKinds.set(id, kind);
    bump(this.res.shapeUses, id);
    return id;
  }

  private rel(ts: number): number { return Math.round((ts - this.t0) * 1e6); }

  /** a completed call (or event token) joins its parent; interrupts fold into an @ shape */
  private addChild(t: TaskState, parent: Frame, name: string, token: string, ts: number, cpu: number): void {
    const isTop = parent === t.top;
    if (name === IRQ_ENTER && parent.irqStart < 0) parent.irqStart = parent.children.length;
    parent.children.push(token);
    if (isTop) { t.topTimes.push(ts); t.topCpus.push(cpu); }
    if (name === IRQ_EXIT && parent.irqStart >= 0) {
      const s = parent.irqStart;
      const run = parent.children.splice(s);
      const id = this.shape(joinSiblings(run), 'irq');
      parent.children.push(`@${id}`);
      if (isTop) { t.topTimes.length = s + 1; t.topCpus.length = s + 1; }
      parent.irqStart = -1;
    }
    if (isTop && name === USER_RETURN && parent.irqStart < 0) {
      t.userland = true;
      this.flush(t, false);
    }
  }

  private flush(t: TaskState, eachCall: boolean): void {
    const c = t.top.children;
    if (!c.length) return;
    if (eachCall) {
      for (let i = 0; i < c.length; i++) t.entries.push(this.rel(t.topTimes[i]), t.topCpus[i], this.shape(c[i], 'entry'));
    } else {
      t.entries.push(this.rel(t.topTimes[0]), t.topCpus[0], this.shape(joinSiblings(c), 'entry'));
    }
    t.top = this.frame(-1, '');
    t.topTimes = []; t.topCpus = [];
  }

  private activate(t: TaskState, ts: number): void {
    t.active = true;
    this.activePids.add(t.pid);
    // the workload starts with the kernel entry of its execve (the syscall's first traced call)
    this.t0 = t.stack.length ? t.stack[0].ts : ts; this.res.startTs = this.t0;
    this.res.calls.clear(); this.res.timeNs.clear(); this.res.shapeUses.clear();
    // what the root did before its execve (the launcher's fifo read) is not the workload's
    t.top = this.frame(-1, ''); t.topTimes = []; t.topCpus = []; t.entries = [];
    for (const f of t.stack) { f.children = []; f.irqStart = -1; bump(this.res.calls, f.fn); }
  }

  private open(t: TaskState, name: string, ts: number): void {
    const fn = this.o.functions.id(name);
    t.stack.push(this.frame(fn, name, ts));
    if (t.active) bump(this.res.calls, fn);
  }

  private close(t: TaskState, name: string | null, durNs: number, ts: number, cpu: number): void {
    if (!t.stack.length) return; // entered before tracing started
    let i = t.stack.length - 1;
    if (name !== null && t.stack[i].name !== name) {
      while (i >= 0 && t.stack[i].name !== name) i--;
      if (i < 0) return;
      while (t.stack.length - 1 > i) this.close(t, null, 0, ts, cpu); // lost closes (dropped events)
    }
    const f = t.stack.pop()!;
    if (!t.active) return; // the root before its execve: only its stack matters
    bump(this.res.timeNs, f.fn, durNs);
    let token = callToken(f.fn, f.children);
    if (f.name === SOFTIRQ) token = `@${this.shape(token, 'softirq')}`;
    this.addChild(t, t.stack.length ? t.stack[t.stack.length - 1] : t.top, f.name, token, f.ts, cpu);
  }

  private leaf(t: TaskState, name: string, durNs: number, ts: number, cpu: number): void {
    if (!t.active) return;
    const fn = this.o.functions.id(name);
    bump(this.res.calls, fn); bump(this.res.timeNs, fn, durNs);
    this.addChild(t, t.stack.length ? t.stack[t.stack.length - 1] : t.top, name, String(fn), ts, cpu);
  }

  private event(t: TaskState, text: string, ts: number, cpu: number): void {
    const m = /^(\w+): (.*)$/.exec(text);
    if (!m) return;
    const [, ev, fields] = m;
    const f = (k: string): string => (new RegExp(`(?:^| )${k}=(\\S*)`).exec(fields) ?? [])[1] ?? '';
    if (ev === 'sched_process_fork' && t.active) {
      const child = Number(f('child_pid'));
      this.activePids.add(child);
      const c = this.tasks.get(String(child));
      if (c) c.active = true;
      this.childInfo.set(child, { parent: t.pid, comm: f('child_comm') });
    } else if (ev === 'sched_process_exec' && t.active) {
      if (t.pid === this.o.rootPid) this.execed = true;
      t.execs.push(f('filename'));
      t.comm = f('filename').slice(f('filename').lastIndexOf('/') + 1).slice(0, 15);
    } else if (ev === 'sched_process_exit' && t.active) {
      t.exited = true;
    }
    if (!t.active) return;
    const token = `!${this.o.events.id(ev)}`;
    this.addChild(t, t.stack.length ? t.stack[t.stack.length - 1] : t.top, '', token, ts, cpu);
  }

  private childInfo = new Map<number, { parent: number; comm: string }>();
  private execed = false;
  /** module functions print as `name [module]` */

  private fnName(s: string): string {
    if (!s.endsWith(']')) return s;
    const i = s.lastIndexOf(' [');
    if (i < 0) return s;
    const name = s.slice(0, i);
    this.res.modules.set(name, s.slice(i + 2, -1));
    return name;
  }

  line(s: string): void {
    this.res.lines++;
    const m = LINE.exec(s);
    if (!m) {
      const lost = /\[LOST (\d+) EVENTS\]/.exec(s);
      if (lost) this.res.lost += Number(lost[1]);
      return;
    }
    const ts = Number(m[1]);
    const cpu = Number(m[2]);
    const t = this.task(m[3], cpu);
    const root = this.o.rootPid !== null && t.pid === this.o.rootPid;
    if (!t.active && !root) return;
    if (this.o.rootPid === null && this.t0 < 0) { this.t0 = ts; this.res.startTs = ts; }
    this.res.endTs = ts;
    const durNs = m[4] ? Math.round(Number(m[4]) * 1000) : 0;
    const body = m[5].trim();
    if (body.endsWith('() {')) {
      const name = this.fnName(body.slice(0, -4));
      // the root's execve attempts (a shell's PATH search fails with ENOENT first) restart the workload
      // until one succeeds (its sched_process_exec)
      if (root && !this.execed && EXECVE.has(name)) this.activate(t, ts);
      this.open(t, name, ts);
    } else if (body.endsWith('();')) {
      this.leaf(t, this.fnName(body.slice(0, -3)), durNs, ts, cpu);
    } else if (body.startsWith('}')) {
      const tail = /\/\* (.+?) \*\/$/.exec(body);
      this.close(t, tail ? this.fnName(tail[1]) : null, durNs, ts, cpu);
    } else if (body.startsWith('/* ') && body.endsWith(' */')) {
      this.event(t, body.slice(3, -3), ts, cpu);
    }
  }

  finish(): GraphResult {
    for (const t of this.tasks.values()) {
      if (!t.active) continue;
      while (t.stack.length) this.close(t, null, 0, this.res.endTs, -1);
      this.flush(t, !t.userland);
      const info = this.childInfo.get(t.pid);
      this.res.tasks.push({ pid: t.pid, comm: t.comm || info?.comm || '', parent: info?.parent ?? -1, execs: t.execs, entries: t.entries });
    }
    this.res.tasks.sort((a, b) => a.pid - b.pid);
    return this.res;
  }
}
