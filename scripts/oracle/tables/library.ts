/**
 * The tapset library as a script sees it in passes 1-2: functions stap 4.8 reserves to guru
 * mode (`/* guru *\/` in their embedded C: refused from a user's script without -g, allowed
 * from the tapsets and with -g), the functions that only look guru-like (set_*_arg,
 * set_user_string_arg: script functions calling guru ones from a tapset), the variables -L
 * lists for aliases on `never` (exit, exit_group .return), and the argument forms of the print
 * functions (format and delimiter literals, histograms, missing and extra values).
 */
import { OracleCase, Table, p1, p2 } from '../cases';

const GURU = [
  'printk(1, "a")', 'dump_stack()', 'panic("a")', 'raise(1)', 'set_kernel_long(0, 1)', 'set_kernel_int(0, 1)',
  'set_kernel_short(0, 1)', 'set_kernel_char(0, 1)', 'set_kernel_pointer(0, 1)', 'set_kernel_string(0, "a")',
  'set_kernel_string_n(0, 1, "a")', 'set_user_long(0, 1)', 'set_user_int(0, 1)', 'set_user_short(0, 1)', 'set_user_char(0, 1)',
  'set_user_pointer(0, 1)', 'set_user_string(0, "a")', 'set_user_string_n(0, 1, "a")', 'x = task_ns_pid(0)', 'x = task_ns_tid(0)',
  'x = task_ns_uid(0)', 'x = task_ns_gid(0)', 'x = task_ns_euid(0)', 'x = task_ns_egid(0)',
  // NOT_GURU_FROM: script functions of the tapsets that call guru ones
  'set_int_arg(1, 2)', 'set_long_arg(1, 2)', 'set_pointer_arg(1, 2)', 'set_user_string_arg(0, "a")',
];

const NOT_GURU_FROM = 24;

const GURU_FORMS: [string, string][] = [
  ['in-fn', 'function f() { printk(1, "a") } probe begin { f() }'],
  ['unused-fn', 'function f() { printk(1, "a") } probe begin { println(1) }'],
  ['dead', 'probe begin { if (0) printk(1, "a") }'],
  ['two', 'probe begin { printk(1, "a"); panic("b") }'],
  ['and-type-error', 'probe begin { printk(1, "a"); x = 1 + "a" }'],
  ['arity', 'probe begin { printk(1) }'],
];

const LISTED = ['syscall.exit.return', 'syscall.exit_group.return', 'nd_syscall.exit.return', 'nd_syscall.exit_group.return',
  'dw_syscall.exit.return', 'dw_syscall.exit_group.return', 'syscall.exit*.return'];

const PRINTS = [
  'print(@hist_log(st))', 'println(@hist_linear(st, 0, 10, 1))', 'x = sprint(@hist_log(st))', 'x = sprintln(@hist_log(st))',
  'print(@hist_log(st), 1)', 'print(1, @hist_log(st))', 'printf("%d", @hist_log(st))', 'print(@hist_log(st)[1])',
  'println(@hist_log(st)[1], 2)', 'printd(",", @hist_log(st)[1], 2)', 'printd(",", @hist_log(st), 2)', 'printf(@hist_log(st))',
  'printf("%d\\n" "", 1)', 'printf("" "%d", 1)', 'printf("%d" . "", 1)', 'printf("%d", 1 2)', 'printf("%d" 1)', 'printf("%z" 1)',
  'printf("%d",)', 'printf("%d", 1,)', 'printf("%d", 1', 'printf("%d"', 'printf(', 'printf("%")', 'printf("%-")', 'printf("%5.")',
  'printd(",")', 'printd(",", 1)', 'printd(",", 1, 2)', 'printd(",", 1, 2,)', 'printd(1, 2, 3)', 'printdln("", 1, 2)',
  'x = sprintd(",", 1)', 'x = sprintd(",", 1, "a")', 'print()', 'print(1,)', 'print(,1)', 'println()', 'println(1,)', 'x = sprint()',
  'x = sprintln()', 'x = sprintf()', 'x = sprintf("")', 'x = sprintf("%s", "a", "b")', 'printf("%d %s", 1)',
  'println(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)',
];

export const library: Table = {
  name: 'library',
  about: 'guru-only tapset functions, -L of never aliases, print argument forms',
  cases(): OracleCase[] {
    const out: OracleCase[] = [];
    GURU.forEach((call, i) => {
      // (stdout of an accepted call lists tapset internals)
      out.push({ ...p2(`guru:${i}`, `probe begin { ${call} }`), stdout: i < NOT_GURU_FROM });
      out.push({ ...p2(`guru:${i}:g`, `probe begin { ${call} }`, '-g'), stdout: false });
    });
    for (const [id, s] of GURU_FORMS) out.push(p2(`guru-form:${id}`, s));
    for (const pt of LISTED) out.push({ id: `list:${pt}`, args: ['-L', pt] });
    PRINTS.forEach((s, i) => {
      out.push(p1(`print:${i}:p1`, `global st probe begin { st <<< 1; ${s} }`));
      out.push(p2(`print:${i}`, `global st probe begin { st <<< 1; ${s} }`));
    });
    return out;
  },
};
