/**
 * The pid -> comm cache of kernel/trace/trace.c (6.1): `saved_cmdlines_size` slots (default 128)
 * filled round robin by trace_save_cmdline(); the map from pid is indexed by pid & (PID_MAX_DEFAULT-1)
 * so a newer pid sharing the index takes the slot. Records print "<...>" for pids not found and
 * "<idle>" for pid 0. Saved at sched_switch after a record was committed on that CPU (the
 * trace_taskinfo_save flag), as tracing_record_taskinfo_sched_switch() does, and for the tgids
 * when the record-tgid option is set.
 */
import { TaskRef } from '../current';

const PID_MAX_DEFAULT = 0x8000;
const NO_CMDLINE_MAP = -1;

export class SavedCmdlines {
  private num = 128;
  private idx = -1;
  private mapPidToCmdline = new Int32Array(PID_MAX_DEFAULT).fill(NO_CMDLINE_MAP);
  private mapCmdlineToPid = new Int32Array(128).fill(NO_CMDLINE_MAP);
  private cmdlines: string[] = new Array<string>(128).fill('');
  private readonly tgids = new Map<number, number>();
  /** per CPU: a record was committed since the last save (trace_taskinfo_save) */
  readonly pending: boolean[] = [];
  /** users of cmdline recording (tracing_start_cmdline_record refcount) */
  users = 0;

  get size(): number {
    return this.num;
  }

  /** saved_cmdlines_size write: reallocate (contents dropped) */
  resize(n: number): void {
    this.num = n;
    this.idx = -1;
    this.mapPidToCmdline.fill(NO_CMDLINE_MAP);
    this.mapCmdlineToPid = new Int32Array(n).fill(NO_CMDLINE_MAP);
    this.cmdlines = new Array<string>(n).fill('');
  }

  /** trace_save_cmdline() */
  save(t: TaskRef): void {
    if (!t.tid) return;
    const tpid = t.tid & (PID_MAX_DEFAULT - 1);
    let i = this.mapPidToCmdline[tpid];
    if (i === NO_CMDLINE_MAP) {
      i = (this.idx + 1) % this.num;
      this.mapPidToCmdline[tpid] = i;
      this.idx = i;
    }
    this.mapCmdlineToPid[i] = t.tid;
    this.cmdlines[i] = t.comm.slice(0, 15);
  }

  saveTgid(t: TaskRef): void {
    if (t.tid) this.tgids.set(t.tid, t.pid);
  }

  /** trace_find_cmdline() */
  find(pid: number): string {
    if (pid === 0) return '<idle>';
    if (pid < 0) return '<XXX>';
    const i = this.mapPidToCmdline[pid & (PID_MAX_DEFAULT - 1)];
    if (i !== NO_CMDLINE_MAP && this.mapCmdlineToPid[i] === pid) return this.cmdlines[i];
    return '<...>';
  }

  tgid(pid: number): number {
    return this.tgids.get(pid) ?? 0;
  }

  /** saved_cmdlines contents: "%d %s" per slot in use, in slot order */
  text(): string {
    let s = '';
    for (let i = 0; i < this.num; i++) {
      const pid = this.mapCmdlineToPid[i];
      if (pid === NO_CMDLINE_MAP || pid === 0) continue;
      s += `${pid} ${this.cmdlines[i]}\n`;
    }
    return s;
  }

  /** saved_tgids contents: "%d %d" per pid known */
  tgidText(): string {
    let s = '';
    for (const [pid, tgid] of [...this.tgids].sort((a, b) => a[0] - b[0])) s += `${pid} ${tgid}\n`;
    return s;
  }
}
