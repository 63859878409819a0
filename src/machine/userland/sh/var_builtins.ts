/**
 * The shell's builtins that set and show variables and parameters (dash 0.5.12's var.c, options.c,
 * miscbltin.c): export, unset, set, shift, read, getopts, local.  `set` and `export -p` quote values
 * as dash does (vars.ts singleQuote); `set --` and `shift` start getopts over.
 */
import type { U } from '../../process/user';
import type { Op, SysResult } from '../../include/sched';
import { singleQuote } from './vars';
import { getopts, type GetoptsHost } from './getopts';

type G<T> = Generator<Op, T, SysResult>;

/** What these builtins use of the shell (exec.ts Shell) */
export interface VarShell extends GetoptsHost {
  exported: Set<string>;
  funcs: { delete(name: string): boolean };
  errexit: boolean;
  xtrace: boolean;
  noglob: boolean;
  bash: boolean;
  /** setparam, shiftcmd: getopts starts at the first parameter again */
  resetGetopts(): void;
  /** the prefix of the shell's messages ("sh: 1: ") */
  prefix(): string;
}
type Builtin = (this: VarShell, u: U, w: string[]) => G<number>;

export const VAR_BUILTINS: Record<string, Builtin> = {
  export: function* (u, w) {
    if (w.length === 1 || w[1] === '-p') {
      for (const k of [...this.exported].sort()) yield* u.out(this.vars.has(k) ? `export ${k}=${singleQuote(this.vars.get(k)!)}\n` : `export ${k}\n`);
      return 0;
    }
    for (const a of w.slice(1)) {
      const eq = a.indexOf('=');
      const k = eq < 0 ? a : a.slice(0, eq);
      if (eq >= 0) this.vars.set(k, a.slice(eq + 1));
      this.exported.add(k);
    }
    return 0;
  },
  unset: function* (_u, w) { for (const k of w.slice(1).filter((x) => x !== '-v' && x !== '-f')) { this.vars.delete(k); this.exported.delete(k); this.funcs.delete(k); } return 0; },
  set: function* (u, w) {
    if (w.length === 1) { for (const [k, v] of [...this.vars].sort()) yield* u.out(`${k}=${singleQuote(v)}\n`); return 0; }
    let i = 1;
    for (; i < w.length; i++) {
      const a = w[i];
      if (a === '--') { i++; break; }
      if (!/^[-+][a-z]+$/.test(a)) break;
      for (const f of a.slice(1)) { if (f === 'e') this.errexit = a[0] === '-'; if (f === 'x') this.xtrace = a[0] === '-'; if (f === 'f') this.noglob = a[0] === '-'; }
    }
    if (i < w.length || w.includes('--')) { this.params = w.slice(i); this.resetGetopts(); }
    return 0;
  },
  shift: function* (u, w) {
    const n = Number(w[1] ?? 1);
    if (n > this.params.length) { if (this.bash) return 1; yield* u.err(`${this.prefix()}shift: can't shift that many\n`); return 2; }
    this.params = this.params.slice(n);
    this.resetGetopts();
    return 0;
  },
  read: function* (u, w) {
    const names = w.slice(1).filter((x) => !x.startsWith('-'));
    const raw = w.includes('-r');
    let line = '';
    for (;;) {
      const r = yield* u.read(0, 1);
      if (r.ret <= 0 || !r.data) { if (!line) return 1; break; }
      const ch = String.fromCharCode(r.data[0]);
      if (ch === '\n') break;
      line += ch;
    }
    if (!raw) line = line.replace(/\\(.)/g, '$1');
    const ifs = this.vars.get('IFS') ?? ' \t\n';
    const fields = line.split(new RegExp(`[${ifs.replace(/[\\\]^-]/g, '\\$&')}]+`)).filter((x, i) => x || i > 0);
    if (!names.length) names.push('REPLY');
    names.forEach((n, i) => this.vars.set(n, i === names.length - 1 ? fields.slice(i).join(' ') : fields[i] ?? ''));
    return 0;
  },
  getopts: function* (u, w) {
    const r = getopts(this, w);
    if (r.err) yield* u.err(r.status === 2 ? `${this.prefix()}${r.err}` : r.err);
    return r.status;
  },
  local: function* (_u, w) { for (const a of w.slice(1)) { const eq = a.indexOf('='); if (eq >= 0) this.vars.set(a.slice(0, eq), a.slice(eq + 1)); } return 0; },
};
