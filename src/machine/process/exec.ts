/**
 * execve (fs/exec.c): the new program image (at the syscall's entry: the recorded tree of the exec that
 * follows is the variant for the program loaded), the comm change in __set_task_comm, and the exec
 * tracepoints' arguments.
 */
import type { ProcMachine } from './procs';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';
import { perfEventExec } from '../kernel/perf_event_open';
import { kmem } from '../../kernel/memory';
import { OpenFile, O_LARGEFILE } from '../include/fs';
import { wakeTasks } from '../kernel/sched/core';
import { setEnviron } from './environ';
import type { ProgramMain } from './user';

const ENOENT = 2;

export const exec = new Semantics<ProcMachine>('process/exec');

/**
 * binfmt_script (fs/binfmt_script.c): a file that begins with "#!" runs its interpreter. The first line
 * (of the first BINPRM_BUF_SIZE bytes) names it and at most one argument, blanks around both
 * dropped; the new argv is [interpreter, argument if any, the file name as exec'd, argv[1]...]. null
 * when the file does not begin with "#!" or names nothing.
 */
export function scriptInterpreter(head: Uint8Array, filename: string, argv: readonly string[]): { interp: string; argv: string[] } | null {
  if (head[0] !== 0x23 || head[1] !== 0x21) return null;
  const b = Buffer.from(head.subarray(0, BINPRM_BUF_SIZE));
  const nl = b.indexOf(10);
  const line = b.toString('latin1', 2, nl < 0 ? b.length : nl).replace(/^[ \t]+|[ \t]+$/g, '');
  if (!line) return null;
  const sp = line.search(/[ \t]/);
  const interp = sp < 0 ? line : line.slice(0, sp);
  const arg = sp < 0 ? '' : line.slice(sp).replace(/^[ \t]+/, '');
  return { interp, argv: [interp, ...(arg ? [arg] : []), filename, ...argv.slice(1)] };
}
const BINPRM_BUF_SIZE = 256;

/** Whether bytes begin as an ELF file does (binfmt_elf's check of e_ident's magic). */
export function isElf(head: Uint8Array): boolean {
  return head.length >= 4 && head[0] === 0x7f && head[1] === 0x45 && head[2] === 0x4c && head[3] === 0x46;
}

/**
 * What runs an ELF binary of the recorded install the machine does not model (its file has the real
 * size and date, not the real code): it says so on standard error and exits 127, as a missing command.
 */
function unmodelledProgram(exe: string): ProgramMain {
  return function* (u, argv) {
    yield* u.err(`${argv[0]}: ${exe} is not modelled by tapsim's simulated userland (only its size and date are Debian's)\n`);
    return 127;
  };
}

exec.syscall('execve', (m, c, t, e) => {
  const p = String(e.a[0]);
  const ino = m.fs.lookup(p, t.proc.cwd);
  if (!ino || !ino.isReg) { e.ret = -ENOENT; return H_CONT; }
  let exe = m.fs.pathOf(ino);
  let argv = e.a[1] as string[], image = p;
  // a script runs its interpreter (the task is named after the script, bprm->filename)
  const head = m.procs.programs.has(exe) ? null : ino.readBytes(0, BINPRM_BUF_SIZE);
  const script = head && scriptInterpreter(head, p, argv);
  // an ELF file of the install that the machine has no program for: a program that says so
  const unmodelled = head && !script && isElf(head) ? unmodelledProgram(exe) : undefined;
  if (script) {
    const interp = m.fs.lookup(script.interp, t.proc.cwd);
    if (!interp || !interp.isReg) { e.ret = -ENOENT; return H_CONT; }
    exe = m.fs.pathOf(interp);
    argv = script.argv;
    image = script.interp;
  }
  // bprm->file: do_open_execat's open of the binary (O_LARGEFILE | __FMODE_EXEC), what the recorded
  // tree's vfs_open, do_dentry_open and kernel_read see
  e.file = new OpenFile('file', ino, O_LARGEFILE);
  e.ino = ino;
  const oldComm = t.comm;
  // exec_mmap's mm_release: a vfork child gives its parent's address space back (complete_vfork_done)
  const vforkParent = m.procs.programs.has(exe) || unmodelled ? m.procs.vforkRelease(t.proc) : null;
  if (!m.procs.exec(t, exe, argv, p, image, unmodelled)) { e.ret = -8; return H_CONT; } // ENOEXEC
  if (Array.isArray(e.envp)) setEnviron(t.proc, e.envp as string[]);
  e.oldPid = t.pid;
  // the comm changes in __set_task_comm, after task_rename has seen the old one
  e.newComm = t.comm;
  t.comm = oldComm;
  e.ret = 0;
  return vforkParent ? wakeTasks(c, e, [vforkParent]) : H_CONT;
});
exec.tpArgs('task_rename', (_m, _c, t, e) => [t, e.newComm ?? t.comm]);
exec.hook('set_comm', (_m, _c, t, e) => {
  perfEventExec(t); // begin_new_exec: perf_event_exec() just before __set_task_comm()
  if (typeof e.newComm === 'string') t.comm = e.newComm;
  const a = kmem.boundAddr(t);
  if (a !== undefined) kmem.setField(a, 'struct task_struct', 'comm', t.comm);
  return H_CONT;
});
exec.at('__set_task_comm', 'set_comm');
exec.tpArgs('sched_process_exec', (_m, _c, t, e) => [t, e.oldPid ?? t.pid, { filename: e.a[0] }]);
