/**
 * The shell (dash 0.5.12, as strace -f of Debian 12's /bin/sh shows it): runs parsed lists in the
 * simulated machine's process model. Builtins and compound commands run in the shell's process;
 * a simple command's redirections are applied in the shell with the replaced descriptors saved
 * above 10 (and put back after it); other commands are found on PATH (each name once: dash's command
 * hash table) and run with vfork + execve, waited for as a job (sh/jobs.ts). A forked child (pipeline
 * member, `list &`, subshell, command substitution) execs its last command without another fork
 * (EV_EXIT); the top level of `sh -c` does not (dash's evalstring clears EV_EXIT until the parser
 * has seen the end of the string). Pipelines fork one child per command with pipe2; `list &` forks
 * a child reading /dev/null with SIGINT and SIGQUIT ignored; command substitution reads a forked
 * subshell's output through a pipe.
 */
import type { U } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import { O_CREAT, O_TRUNC, O_APPEND, O_WRONLY, O_RDWR } from '../../include/fs';
import { netPath, netOpen } from '../bash/netopen';
import { bashExternal, bashEnvironment, bashSaveFd, bashAtExit, type BashShell } from '../bash/external';
import { bashInit } from '../bash/init';
import { dashInit } from './init';
import { SHELL_BUILTINS } from '../builtins';
import { defaultEnvironment } from '../environment';
import { Command, List, AndOr, Pipeline, Redir, Word, parseScript, ShSyntaxError } from './parse';
import { ExpandHost, expandWords, expandToString, hereParts } from './expand';
import { globMatch } from '../../../kernel/ftrace_regex';
import { Jobs, Job, DOWAIT_NONBLOCK, DOWAIT_WAITCMD, DOWAIT_WAITCMD_ALL } from './jobs';
import { dashEnvironment } from './vars';
import { newGetoptsState } from './getopts';
import { VAR_BUILTINS } from './var_builtins';
import { environOf } from '../../process/environ';
import { errStr } from '../libc_strerror';
import { dashKill } from './kill';
import { execOrSh } from '../libfs';

type G<T> = Generator<Op, T, SysResult>;

/** break / continue / return / exit unwinding */
class Flow { constructor(readonly kind: 'break' | 'continue' | 'return' | 'exit', readonly n: number) {} }
/** an error that ends the command (dash's exraise): the shell prints it, status 2 */
class ShError {
  constructor(readonly msg: string, readonly status = 2) {}
}

/** The shells' foreground jobs by shell pid (the terminal sends Ctrl-C's SIGINT to them). */
export const foregroundJobs = new Map<number, number[]>();

export class Shell implements ExpandHost {
  vars = new Map<string, string>();
  exported = new Set<string>();
  params: string[] = [];
  name = 'sh';
  status = 0;
  lastBg = 0;
  funcs = new Map<string, Command>();
  jobs = new Jobs();
  /** dash's command hash table: name -> path found on PATH (inherited by forked children) */
  hashed = new Map<string, string>();
  interactive = false;
  /** the pid $$ names (the top shell's, also in subshells) */
  pid = 0;
  line = 1;
  /** script name for messages ("sh" for -c, the file for `sh FILE`) */
  arg0 = 'sh';
  errexit = false;
  xtrace = false;
  /** set -f: no pathname expansion */
  noglob = false;
  /** where getopts is in the parameters (sh/getopts.ts) */
  getopts = newGetoptsState();
  bash = false; // run as bash: its /dev/tcp and /dev/udp redirections (bash/netopen.ts), its forks (bash/external.ts)
  private u: U | null = null;

  /** `env`: the environment the shell started with (NAME=VALUE), all exported */
  constructor(env?: readonly string[]) {
    for (const x of env ?? Object.entries(defaultEnvironment()).map(([k, v]) => `${k}=${v}`)) {
      const eq = x.indexOf('=');
      if (eq > 0) { this.vars.set(x.slice(0, eq), x.slice(eq + 1)); this.exported.add(x.slice(0, eq)); }
    }
    // (dash's default PATH when the environment has none: set, not exported)
    if (!this.vars.has('PATH')) this.vars.set('PATH', DEFAULT_PATH);
    this.vars.set('IFS', ' \t\n');
    this.vars.set('PS1', '# ');
    this.vars.set('PS2', '> ');
    // var.c's varinit: OPTIND and PS4 are set at start too (PPID after getppid: shMain)
    this.vars.set('OPTIND', '1');
    this.vars.set('PS4', '+ ');
  }

  clone(): Shell {
    const s = new Shell();
    s.vars = new Map(this.vars); s.exported = new Set(this.exported); s.params = this.params.slice(); s.name = this.name;
    s.status = this.status; s.lastBg = this.lastBg; s.funcs = new Map(this.funcs); s.pid = this.pid; s.line = this.line;
    s.arg0 = this.arg0; s.bash = this.bash; s.scriptFile = this.scriptFile; s.errexit = this.errexit; s.xtrace = this.xtrace; s.noglob = this.noglob; s.getopts = { ...this.getopts }; s.hashed = new Map(this.hashed);
    return s;
  }

  /** setparam, shiftcmd, evalfun: getopts starts at the first parameter again (OPTIND as it is) */
  resetGetopts(): void { this.getopts = { optind: 1, optoff: -1, seen: this.vars.get('OPTIND') ?? '' }; }
  get(n: string): string | undefined { return this.vars.get(n); }
  set(n: string, v: string): void { this.vars.set(n, v); }
  special(c: string): string {
    switch (c) {
      case '?': return String(this.status);
      case '$': return String(this.pid);
      case '!': return this.lastBg ? String(this.lastBg) : '';
      case '#': return String(this.params.length);
      case '0': return this.name;
      // (dash lists the set options from the last of its optletters "efIimnsxvVECabu" to the first)
      case '-': return (this.xtrace ? 'x' : '') + (this.interactive ? 'i' : '') + (this.noglob ? 'f' : '') + (this.errexit ? 'e' : '');
    }
    return '';
  }
  fail(msg: string): never { throw new ShError(msg); }

  scriptFile = false; // run from `sh FILE`
  /** the pids of background job %id, or null (sh/kill.ts) */
  jobPids(id: number): readonly number[] | null {
    return this.jobs.background().find((j) => j.id === id)?.pids ?? null;
  }

  /** dash: `sh: LINE: ` (the script name for `sh FILE`); bash 5.2: `FILE: line N: ` for a script file, else `bash: ` */
  prefix(): string {
    return this.bash ? (this.scriptFile ? `${this.arg0}: line ${this.line}: ` : `${this.arg0}: `) : `${this.arg0}: ${this.line}: `;
  }

  *cmdSubst(u: U, src: string): G<string> {
    const [r, w] = yield* u.pipe();
    if (r < 0) return '';
    const sub = this.clone();
    const jp = this.jobs.make(src, false);
    // evalbackcmd: the child's stdout is the pipe; expbackq reads it 128 bytes at a time
    const pid = yield* u.fork(function* (cu: U): Prog {
      yield* cu.close(r);
      if (w !== 1) { yield* cu.dup2(w, 1); yield* cu.close(w); }
      return yield* sub.runSource(cu, src, true);
    });
    if (pid > 0) this.jobs.add(jp, pid);
    yield* u.close(w);
    const b = yield* u.readAll(r, 128);
    yield* u.close(r);
    this.status = yield* this.jobs.waitForJob(u, jp);
    return Buffer.from(b).toString('latin1').replace(/\n+$/, '');
  }

  /** Run `src`; `exit` as dash's EV_EXIT (the last command may exec); `nested` (eval, `.`, the interactive loop): an `exit` in it ends the shell. */
  *runSource(u: U, src: string, exit: boolean, nested = false): G<number> {
    let list: List;
    try {
      list = parseScript(src);
    } catch (e) {
      if (e instanceof ShSyntaxError) { yield* u.err(`${this.arg0}: ${e.line}: ${e.message}\n`); return 2; }
      throw e;
    }
    try {
      return yield* this.runList(u, list, exit);
    } catch (e) {
      if (e instanceof Flow && e.kind === 'exit') { if (nested) throw e; return e.n; }
      if (e instanceof Flow) return this.status;
      throw e;
    }
  }

  *runList(u: U, list: List, exit: boolean): G<number> {
    this.u = u;
    for (let i = 0; i < list.length; i++) {
      const ao = list[i];
      if (ao.bg) { yield* this.background(u, ao); continue; }
      const st = yield* this.runAndOr(u, ao, exit && i === list.length - 1);
      this.status = st;
      if (this.errexit && st !== 0 && !this.tested && !ao.rest.length && !ao.first.bang) throw new Flow('exit', st);
    }
    return this.status;
  }

  /** how deep in if/while/until conditions (dash's EV_TESTED): set -e does not apply there */
  private tested = 0;
  private *runTested(u: U, list: List): G<number> {
    this.tested++;
    try {
      return yield* this.runList(u, list, false);
    } finally {
      this.tested--;
    }
  }

  /** `list &`: a pipeline runs as one with its members in the background, anything else in a forked child (evalsubshell) */
  private *background(u: U, ao: AndOr): G<void> {
    if (!ao.rest.length && ao.first.cmds.length > 1 && !ao.first.bang) {
      yield* this.runPipeline(u, ao.first, false, ao.src);
      this.status = 0;
      return;
    }
    const jp = this.jobs.make(ao.src, true);
    const sub = this.clone();
    const pid = yield* u.fork(function* (cu: U): Prog {
      yield* sub.forkBg(cu, true);
      try {
        return yield* sub.runAndOr(cu, { ...ao, bg: false }, true);
      } catch (e) {
        if (e instanceof Flow) return e.kind === 'exit' ? e.n : sub.status;
        throw e;
      }
    });
    if (pid > 0) yield* this.bgStarted(u, jp, pid);
    this.status = 0;
  }

  /**
   * forkchild of a background job: SIGINT and SIGQUIT ignored, and the job's first process reads
   * /dev/null (close(0), open); an interactive shell's jobs keep the terminal
   */
  private *forkBg(cu: U, first: boolean): G<void> {
    if (!this.interactive) {
      yield* cu.sigaction(2, 'ignore');
      yield* cu.sigaction(3, 'ignore');
      if (first) { yield* cu.close(0); yield* cu.open('/dev/null', 0); }
    }
    this.interactive = false;
  }

  private *bgStarted(u: U, jp: Job, pid: number): G<void> {
    this.jobs.add(jp, pid);
    this.lastBg = pid;
    if (this.interactive && jp.pids.length === 1) yield* u.err(`[${jp.id}] ${pid}\n`);
  }

  private *runAndOr(u: U, ao: AndOr, exit: boolean): G<number> {
    let st = yield* this.runPipeline(u, ao.first, exit && !ao.rest.length);
    for (let i = 0; i < ao.rest.length; i++) {
      const r = ao.rest[i];
      this.status = st;
      if ((r.op === '&&' && st === 0) || (r.op === '||' && st !== 0)) st = yield* this.runPipeline(u, r.p, exit && i === ao.rest.length - 1);
    }
    return st;
  }

  /**
   * evalpipe: per command, its name hashed (prehash), a pipe2 unless it is the last, a fork; the child
   * closes the pipe's read end, takes the previous read end as stdin and the write end as stdout
   * (dup2, close) and runs the command as its last (EV_EXIT); the parent closes the previous read
   * end and the write end (close(-1) after the last command, as dash). `bg`: the job's source text
   * when the pipeline is `&`'s (not waited for).
   */
  private *runPipeline(u: U, pl: Pipeline, exit: boolean, bg: string | null = null): G<number> {
    let st: number;
    if (pl.cmds.length === 1) st = yield* this.runCommand(u, pl.cmds[0], exit && !pl.bang);
    else {
      const jp = this.jobs.make(bg ?? '', bg !== null);
      let prevfd = -1;
      for (let k = 0; k < pl.cmds.length; k++) {
        const cmd = pl.cmds[k];
        yield* this.prehash(u, cmd);
        let pr = -1, pw = -1;
        if (k < pl.cmds.length - 1) [pr, pw] = yield* u.pipe();
        const inFd = prevfd;
        const sub = this.clone();
        const first = k === 0;
        const pid = yield* u.fork(function* (cu: U): Prog {
          if (bg !== null) yield* sub.forkBg(cu, first);
          if (pw >= 0) yield* cu.close(pr);
          if (inFd > 0) { yield* cu.dup2(inFd, 0); yield* cu.close(inFd); }
          if (pw > 1) { yield* cu.dup2(pw, 1); yield* cu.close(pw); }
          try {
            return yield* sub.runCommand(cu, cmd, true);
          } catch (e) {
            if (e instanceof Flow) return e.kind === 'exit' ? e.n : sub.status;
            if (e instanceof ShError) { yield* cu.err(sub.prefix() + e.msg + '\n'); return e.status; }
            throw e;
          }
        });
        if (pid > 0) { if (bg !== null) yield* this.bgStarted(u, jp, pid); else this.jobs.add(jp, pid); }
        if (inFd >= 0) yield* u.close(inFd);
        prevfd = pr;
        yield* u.close(pw);
      }
      st = bg !== null ? 0 : yield* this.waitFg(u, jp);
    }
    return pl.bang ? (st === 0 ? 1 : 0) : st;
  }

  /** prehash: a simple command's name looked up on PATH before its pipeline member is forked */
  private *prehash(u: U, c: Command): G<void> {
    if (c.k !== 'simple' || !c.words.length) return;
    const w = c.words[0];
    if (w.parts.length !== 1 || w.parts[0].k !== 'lit') return;
    const name = (w.parts[0] as { s?: string }).s ?? '';
    if (!name || name.includes('/') || this.funcs.has(name) || this.builtin(name)) return;
    yield* this.find(u, name);
  }

  /** waitforjob: wait for a foreground job; the status of its last process */
  *waitFg(u: U, jp: Job): G<number> {
    if (this.interactive) foregroundJobs.set(this.pid, jp.pids.slice());
    const last = yield* this.jobs.waitForJob(u, jp);
    if (this.interactive) {
      foregroundJobs.delete(this.pid);
      if (last >= 128 && last - 128 === 2) yield* u.err('\n');
    }
    return last;
  }

  private *runCommand(u: U, c: Command, exit: boolean): G<number> {
    try {
      switch (c.k) {
        case 'simple': return yield* this.simple(u, c, exit);
        case 'func': this.funcs.set(c.name, c.body); return 0;
        case 'subshell': {
          const sub = this.clone();
          const redirs = c.redirs;
          const body = c.body;
          const run = function* (cu: U): Prog {
            if (!(yield* sub.redirect(cu, redirs, null))) return 2;
            try { return yield* sub.runList(cu, body, true); } catch (e) {
              if (e instanceof Flow) return e.kind === 'exit' ? e.n : sub.status;
              throw e;
            }
          };
          if (exit) return yield* run(u);
          const jp = this.jobs.make('', false);
          const pid = yield* u.fork(run);
          if (pid > 0) this.jobs.add(jp, pid);
          return yield* this.waitFg(u, jp);
        }
        default: return yield* this.withRedirs(u, c.redirs, () => this.compound(u, c, exit));
      }
    } catch (e) {
      if (e instanceof ShError) {
        yield* u.err(this.prefix() + e.msg + '\n');
        if (!this.interactive && /: (parameter not set|Bad substitution)/.test(e.msg)) throw new Flow('exit', e.status);
        return e.status;
      }
      throw e;
    }
  }

  private *compound(u: U, c: Command, exit: boolean): G<number> {
    switch (c.k) {
      case 'group': return yield* this.runList(u, c.body, exit);
      case 'if': {
        for (const cl of c.clauses) {
          if ((yield* this.runTested(u, cl.cond)) === 0) return yield* this.runList(u, cl.body, exit);
        }
        return c.else ? yield* this.runList(u, c.else, exit) : 0;
      }
      case 'loop': {
        let st = 0;
        for (;;) {
          const cs = yield* this.runTested(u, c.cond);
          if ((cs === 0) === c.until) break;
          const r = yield* this.loopBody(u, c.body);
          st = r.st;
          if (r.brk) break;
        }
        return st;
      }
      case 'for': {
        const items = c.items === null ? this.params.slice() : yield* expandWords(this, u, c.items, this.noglob);
        let st = 0;
        for (const it of items) {
          this.vars.set(c.name, it);
          const r = yield* this.loopBody(u, c.body);
          st = r.st;
          if (r.brk) break;
        }
        return st;
      }
      case 'case': {
        const w = yield* expandToString(this, u, c.word);
        for (const it of c.items) {
          for (const p of it.pats) {
            const pat = yield* expandToString(this, u, p);
            if (globMatch(pat, w)) return it.body ? yield* this.runList(u, it.body, exit) : 0;
          }
        }
        return 0;
      }
    }
    return 0;
  }

  private loopDepth = 0;
  private *loopBody(u: U, body: List): G<{ st: number; brk: boolean }> {
    this.loopDepth++;
    try {
      return { st: yield* this.runList(u, body, false), brk: false };
    } catch (e) {
      if (e instanceof Flow && (e.kind === 'break' || e.kind === 'continue')) {
        if (e.n > 1) throw new Flow(e.kind, e.n - 1);
        return { st: 0, brk: e.kind === 'break' };
      }
      throw e;
    } finally {
      this.loopDepth--;
    }
  }

  /** run `body` with redirections applied to the shell itself (REDIR_PUSH), put back afterwards (popredir) */
  private *withRedirs(u: U, redirs: Redir[], body: () => G<number>): G<number> {
    if (!redirs.length) return yield* body();
    const saved = new Map<number, number>();
    let st: number;
    try {
      if (!(yield* this.redirect(u, redirs, saved))) return 2;
      st = yield* body();
    } finally {
      // popredir: descriptors 0-9 in order; a saved copy dup2'ed back and closed, one that was not open closed
      for (const fd of [...saved.keys()].sort((a, b) => a - b)) {
        const copy = saved.get(fd)!;
        if (copy >= 0) yield* u.dup2(copy, fd);
        if (copy >= 0 && this.bash) yield* u.sys('fcntl', [copy, F_GETFD]); // bash's undo: the copy's flag read
        yield* u.close(copy >= 0 ? copy : fd);
      }
    }
    return st;
  }

  /**
   * dash's redirect: each redirection's file opened (openredirect), then, when `saved` is given
   * (REDIR_PUSH), the descriptor it replaces saved the first time (savefd: fcntl(fd, F_DUPFD, 10),
   * close(fd), fcntl(copy, F_SETFD, FD_CLOEXEC); -1 for a descriptor that was not open), then moved
   * into place (dupredirect: dup2 and close, `>&N` a dup2 alone, `>&-` a close). False after a message.
   */
  *redirect(u: U, redirs: Redir[], saved: Map<number, number> | null): G<boolean> {
    for (const r of redirs) {
      let newfd: number;
      const dupOp = r.op === '>&' || r.op === '<&';
      if (r.op === '<<' || r.op === '<<-') {
        const body = r.here!.quoted ? r.here!.body : yield* expandToString(this, u, { parts: hereParts(r.here!.body) });
        const [pr, pw] = yield* u.pipe();
        const b = Buffer.from(body, 'latin1');
        if (b.length <= 4096) yield* u.writeAll(pw, b);
        else yield* u.fork(function* (cu: U): Prog { yield* cu.close(pr); yield* cu.writeAll(pw, b); return 0; });
        yield* u.close(pw);
        newfd = pr;
      } else {
        const target = yield* expandToString(this, u, r.target);
        if (dupOp) {
          if (target === '-') newfd = -1;
          else if (!/^\d+$/.test(target)) { yield* u.err(`${this.prefix()}Syntax error: Bad fd number\n`); return false; } else newfd = Number(target);
        } else {
          const flags = r.op === '<' ? 0 : r.op === '<>' ? O_RDWR | O_CREAT : O_WRONLY | O_CREAT | (r.op === '>>' ? O_APPEND : O_TRUNC);
          const net = this.bash && netPath(target) !== null;
          newfd = net ? yield* netOpen(u, target, 'bash') : yield* u.open(target, flags, 0o666);
          if (net && newfd < 0) return false;
          if (newfd < 0) {
            const why = newfd === -2 ? (r.op === '<' ? 'No such file' : 'Directory nonexistent') : newfd === -21 ? 'Is a directory' : 'Permission denied';
            yield* u.err(this.bash ? `${this.prefix()}${target}: ${errStr(newfd)}\n` : `${this.prefix()}cannot ${r.op === '<' ? 'open' : 'create'} ${target}: ${why}\n`);
            return false;
          }
        }
      }
      if (saved && !saved.has(r.fd)) {
        let copy = -1;
        if (r.fd !== newfd && this.bash) copy = yield* bashSaveFd(u, r.fd);
        else if (r.fd !== newfd) {
          copy = (yield* u.sys('fcntl', [r.fd, F_DUPFD, 10])).ret;
          if (copy !== -9) {
            yield* u.close(r.fd);
            if (copy >= 0) yield* u.sys('fcntl', [copy, F_SETFD, FD_CLOEXEC]);
          }
          if (copy < 0) copy = -1;
        }
        saved.set(r.fd, copy);
      }
      if (r.fd === newfd) continue;
      if (dupOp) {
        if (newfd < 0) { yield* u.close(r.fd); continue; }
        if ((yield* u.dup2(newfd, r.fd)) < 0) { yield* u.err(`${this.prefix()}${newfd}: Bad file descriptor\n`); return false; }
        if (this.bash) yield* u.sys('fcntl', [newfd, F_GETFD]); // bash copies the source's close-on-exec flag
        continue;
      }
      yield* u.dup2(newfd, r.fd);
      yield* u.close(newfd);
    }
    return true;
  }

  private *simple(u: U, c: Extract<Command, { k: 'simple' }>, exit: boolean): G<number> {
    this.line = c.line;
    this.status0 = this.status;
    const words = yield* expandWords(this, u, c.words, this.noglob);
    const assigns: [string, string][] = [];
    for (const a of c.assigns) assigns.push([a.name, yield* expandToString(this, u, a.value)]);
    if (this.xtrace) yield* u.err(`+ ${[...assigns.map(([k, v]) => `${k}=${v}`), ...words].join(' ')}\n`);
    if (!words.length) {
      for (const [k, v] of assigns) this.vars.set(k, v);
      const st = yield* this.withRedirs(u, c.redirs, function* () { return 0; });
      return c.words.length || !c.assigns.some((a) => a.value.parts.some((p) => p.k === 'cmd')) ? st : this.status;
    }
    const name = words[0];
    const fn = this.funcs.get(name);
    if (fn) {
      // evalfun: the function has its own parameters and getopts place
      const saved = this.params, savedGetopts = this.getopts;
      this.params = words.slice(1);
      this.resetGetopts();
      try {
        return yield* this.withRedirs(u, c.redirs, () => this.runCommand(u, fn, false));
      } catch (e) {
        if (e instanceof Flow && e.kind === 'return') return e.n;
        throw e;
      } finally {
        this.params = saved;
        this.getopts = savedGetopts;
      }
    }
    // `exec` without a command: its redirections stay in effect (not pushed, never popped)
    if (name === 'exec' && words.length === 1) return (yield* this.redirect(u, c.redirs, null)) ? 0 : 2;
    const bi = this.builtin(name);
    if (bi) {
      const special = SPECIAL_BUILTINS.has(name);
      const savedVars = special ? null : assigns.map(([k]) => [k, this.vars.get(k)] as const);
      for (const [k, v] of assigns) this.vars.set(k, v);
      try {
        return yield* this.withRedirs(u, c.redirs, () => bi.call(this, u, words));
      } finally {
        if (savedVars) for (const [k, v] of savedVars) { if (v === undefined) this.vars.delete(k); else this.vars.set(k, v); }
      }
    }
    // bash forks and redirects in the child (bash/external.ts); a last command without redirections is exec'd
    if (this.bash && (!exit || c.redirs.length)) return yield* bashExternal(u, this.bashHost(c.redirs), name, words);
    // the redirections first (saved: dash pushes them for every simple command), then the command
    // looked up, then a vforked child execs it (run as the last command of a forked child: exec'd)
    const self = this;
    const run = function* (): G<number> {
      const path = yield* self.find(u, name);
      if (!path) { yield* u.err(`${self.prefix()}${name}: not found\n`); return 127; }
      const exec = function* (cu: U): Prog {
        // tryexec: a file the kernel cannot run runs under /bin/sh
        const r = yield* execOrSh(cu, path, words, dashEnvironment(self.vars, self.exported));
        yield* cu.err(`${self.prefix()}${name}: ${r === -2 ? 'not found' : 'Permission denied'}\n`);
        return r === -2 ? 127 : 126;
      };
      if (exit) throw new Flow('exit', yield* exec(u));
      return yield* self.waitFg(u, yield* self.jobs.vforkExec(u, name, exec));
    };
    if (!exit) return yield* this.withRedirs(u, c.redirs, run);
    if (!(yield* this.redirect(u, c.redirs, new Map()))) return 2;
    return yield* run();
  }
  private status0 = 0;

  private bashHost(redirs: Redir[]): BashShell {
    return { hashed: this.hashed, path: () => this.vars.get('PATH') ?? '', prefix: () => this.prefix(),
      environment: (p) => bashEnvironment(this.vars, this.exported, p), redirectInChild: (cu) => this.redirect(cu, redirs, null) };
  }

  /** find_command: a name with a slash as it is, else the hash table's path, else PATH searched (stat per entry) and hashed */
  private *find(u: U, name: string): G<string | null> {
    if (name.includes('/')) return name;
    const h = this.hashed.get(name);
    if (h) return h;
    for (const d of (this.vars.get('PATH') ?? '').split(':')) {
      if (!d) continue;
      const st = yield* u.stat(`${d}/${name}`);
      if (typeof st !== 'number' && st.isReg) { this.hashed.set(name, `${d}/${name}`); return `${d}/${name}`; }
    }
    return null;
  }

  private builtin(name: string): ((this: Shell, u: U, w: string[]) => G<number>) | null {
    const own = BUILTINS[name];
    if (own) return own;
    const ext = SHELL_BUILTINS[name];
    if (ext) return function (this: Shell, u: U, w: string[]) { return ext(u, w, this.prefix(), this.bash); };
    return null;
  }

  /** showjobs(SHOW_CHANGED): reap what has ended (dowait NONBLOCK), report finished background jobs (interactive) */
  *reapJobs(u: U, report: boolean): G<void> {
    yield* this.jobs.dowait(u, DOWAIT_NONBLOCK, null);
    for (const j of this.jobs.background().filter((x) => !this.jobs.running(x))) {
      const st = this.jobs.getstatus(j);
      if (report) yield* u.err(`[${j.id}] + Done${st ? `(${st})` : ''}                    ${j.cmd}\n`);
      this.jobs.free(j);
    }
  }

  /** the interactive loop: prompt, read a command (continuation lines with PS2), run it */
  *interactiveLoop(u: U): G<number> {
    this.interactive = true;
    let pending = '';
    const buf: string[] = [];
    let partial = '';
    for (;;) {
      yield* this.reapJobs(u, true);
      yield* u.err(pending ? (this.vars.get('PS2') ?? '> ') : (this.vars.get('PS1') ?? '# '));
      let line: string | null = null;
      while (line === null) {
        if (buf.length) { line = buf.shift()!; break; }
        const r = yield* u.read(0, 4096);
        if (r.ret <= 0 || !r.data) {
          if (r.ret === -4) { pending = ''; partial = ''; yield* u.err('\n'); line = ''; break; }
          if (partial) { line = partial; partial = ''; break; }
          yield* u.err('\n');
          return this.status;
        }
        const chunk = partial + Buffer.from(r.data).toString('latin1');
        const lines = chunk.split('\n');
        partial = lines.pop()!;
        buf.push(...lines);
      }
      const src = pending + line + '\n';
      try {
        parseScript(src);
      } catch (e) {
        if (e instanceof ShSyntaxError && /end of file|Unterminated|EOF|Missing/.test(e.message)) { pending = src; continue; }
      }
      pending = '';
      try {
        yield* this.runSource(u, src, false, true);
      } catch (e) {
        if (e instanceof Flow && e.kind === 'exit') return e.n;
        throw e;
      }
    }
  }
}

/** Debian's dash: var.c's defpathvar */
const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

const F_DUPFD = 0, F_GETFD = 1, F_SETFD = 2, FD_CLOEXEC = 1;

const SPECIAL_BUILTINS = new Set([':', '.', 'break', 'continue', 'eval', 'exec', 'exit', 'export', 'readonly', 'return', 'set', 'shift', 'trap', 'unset']);

type Builtin = (this: Shell, u: U, w: string[]) => G<number>;

function* ok(): G<number> { return 0; }

const BUILTINS: Record<string, Builtin> = {
  ':': ok, true: ok,
  false: function* () { return 1; },
  cd: function* (u, w) {
    const dir = w[1] ?? this.vars.get('HOME') ?? '/';
    const r = yield* u.chdir(dir);
    if (r < 0) { yield* u.err(this.bash ? `${this.prefix()}cd: ${dir}: ${errStr(r)}\n` : `${this.prefix()}cd: can't cd to ${dir}\n`); return this.bash ? 1 : 2; }
    // dash's setpwd: the old directory in OLDPWD, both exported
    this.vars.set('OLDPWD', this.vars.get('PWD') ?? '/'); this.vars.set('PWD', u.t.proc.cwd); this.exported.add('OLDPWD');
    return 0;
  },
  pwd: function* (u) { yield* u.out(u.t.proc.cwd + '\n'); return 0; },
  exit: function* (_u, w) { throw new Flow('exit', w[1] !== undefined ? Number(w[1]) & 0xff : this.status); },
  return: function* (_u, w) { throw new Flow('return', w[1] !== undefined ? Number(w[1]) & 0xff : this.status); },
  break: function* (_u, w) { if (!this['loopDepth' as keyof Shell]) return 0; throw new Flow('break', Number(w[1] ?? 1)); },
  continue: function* (_u, w) { if (!this['loopDepth' as keyof Shell]) return 0; throw new Flow('continue', Number(w[1] ?? 1)); },
  eval: function* (u, w) { return yield* this.runSource(u, w.slice(1).join(' '), false, true); },
  '.': function* (u, w) {
    if (!w[1]) return 0;
    const fd = yield* u.open(w[1]);
    if (fd < 0) { yield* u.err(`${this.prefix()}.: cannot open ${w[1]}: No such file\n`); return 2; }
    const b = yield* u.readAll(fd);
    yield* u.close(fd);
    return yield* this.runSource(u, Buffer.from(b).toString('latin1'), false, true);
  },
  // dash's execcmd: shellexec(argv + 1, pathval(), 0) — a name without a slash is tried in every PATH
  // directory in turn, an execve each (ENOENT / ENOTDIR go on to the next), not looked up first
  exec: function* (u, w) {
    if (w.length === 1) return 0;
    if (this.bash) {
      const path = yield* (this as unknown as { find(u: U, n: string): G<string | null> }).find(u, w[1]);
      if (!path) { yield* u.err(`${this.prefix()}exec: ${w[1]}: not found\n`); throw new Flow('exit', 127); }
      const r = yield* u.exec(path, w.slice(1), dashEnvironment(this.vars, this.exported));
      yield* u.err(`${this.prefix()}exec: ${w[1]}: ${r === -2 ? 'not found' : 'Permission denied'}\n`);
      throw new Flow('exit', r === -2 ? 127 : 126);
    }
    const env = dashEnvironment(this.vars, this.exported);
    const tries = w[1].includes('/') ? [w[1]] : (this.vars.get('PATH') ?? '').split(':').map((d) => (d ? `${d}/${w[1]}` : w[1]));
    let e = -2;
    for (const path of tries) {
      const r = yield* u.exec(path, w.slice(1), env);
      if (r !== -2 && r !== -20) e = r;
    }
    yield* u.err(`${this.prefix()}exec: ${w[1]}: ${e === -2 ? 'not found' : 'Permission denied'}\n`);
    throw new Flow('exit', e === -2 ? 127 : 126);
  },
  // waitcmd: no operand, reap until no job runs (dowait WAITCMD_ALL: WNOHANG, sigsuspend between
  // SIGCHLDs); operands (a job's last pid or %N): wait for each, the status of the last (127: unknown)
  wait: function* (u, w) {
    const want = w.slice(1);
    const J = this.jobs;
    if (!want.length) {
      while (J.background().some((j) => J.running(j))) if (!(yield* J.dowait(u, DOWAIT_WAITCMD_ALL, null))) break;
      for (const j of J.background().filter((x) => !J.running(x))) J.free(j);
      return 0;
    }
    let last = 0;
    for (const a of want) {
      const bg = J.background();
      const j = a.startsWith('%') ? bg.find((x) => x.id === Number(a.slice(1))) : bg.find((x) => x.pids[x.pids.length - 1] === Number(a));
      if (!j) { last = 127; continue; }
      yield* J.dowait(u, DOWAIT_WAITCMD, j);
      last = J.getstatus(j);
      if (!J.running(j)) J.free(j);
    }
    return last;
  },
  jobs: function* (u) {
    const J = this.jobs;
    yield* J.dowait(u, DOWAIT_NONBLOCK, null);
    const list = J.background();
    const cur = list.length - 1;
    for (let i = 0; i < list.length; i++) {
      const j = list[i];
      const st = J.getstatus(j);
      const state = !J.running(j) ? (st ? `Done(${st})` : 'Done') : 'Running';
      yield* u.out(`[${j.id}] ${i === cur ? '+' : i === cur - 1 ? '-' : ' '} ${state.padEnd(24)}${j.cmd}\n`);
      if (!J.running(j)) J.free(j);
    }
    return 0;
  },
  fg: function* (u, w) {
    const list = this.jobs.background();
    const j = w[1] ? list.find((x) => x.id === Number(w[1].replace(/^%/, ''))) : list[list.length - 1];
    if (!j) { yield* u.err(`${this.prefix()}fg: No current job\n`); return 2; }
    yield* u.out(j.cmd + '\n');
    j.bg = false;
    return yield* this.waitFg(u, j);
  },
  bg: function* (u) { yield* u.err(`${this.prefix()}bg: No current job\n`); return 2; },
  kill: function* (u, w) { return yield* dashKill(this, u, w); },
  trap: ok, umask: ok, readonly: ok,
  ...VAR_BUILTINS,
  type: function* (u, w) {
    let st = 0;
    for (const n of w.slice(1)) {
      if (this.funcs.has(n)) yield* u.out(`${n} is a shell function\n`);
      else if (BUILTINS[n] || SHELL_BUILTINS[n]) yield* u.out(`${n} is a shell builtin\n`);
      else {
        const p = yield* (this as unknown as { find(u: U, n: string): G<string | null> }).find(u, n);
        if (p) yield* u.out(`${n} is ${p}\n`); else { yield* u.out(`${n}: not found\n`); st = 127; }
      }
    }
    return st;
  },
};
BUILTINS.command = function* (u, w) {
  if (w[1] === '-v') { const p = yield* (this as unknown as { find(u: U, n: string): G<string | null> }).find(u, w[2] ?? ''); if (p) { yield* u.out(p + '\n'); return 0; } return 1; }
  return yield* this.runSource(u, w.slice(1).map((x) => `'${x.replace(/'/g, "'\\''")}'`).join(' '), false, true);
};

/** The `sh` program: `sh -c CMD [NAME [ARG...]]`, `sh FILE [ARG...]`, or interactive / stdin. */
export function* shMain(u: U, argv: string[]): Prog {
  const s = new Shell(environOf(u.t.proc));
  s.pid = u.pid; s.name = s.arg0 = argv[0] || 'sh'; // $0 and the name in messages: `/bin/sh: 1: ...`
  s.bash = /(^|\/)bash$/.test(u.t.proc.exe);
  let i = 1;
  let cmd: string | null = null;
  let interactive = false;
  for (; i < argv.length && argv[i].startsWith('-') && argv[i] !== '-'; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (a === '-c') { cmd = argv[++i] ?? ''; continue; }
    for (const f of a.slice(1)) { if (f === 'i') interactive = true; if (f === 'e') s.errexit = true; if (f === 'x') s.xtrace = true; }
  }
  s.vars.set('PPID', String(u.t.proc.parent?.tgid ?? 0));
  // setpwd: PWD (the directory checked against ".") is exported
  s.vars.set('PWD', u.t.proc.cwd);
  s.exported.add('PWD');
  if (!interactive) yield* (s.bash ? bashInit(u, s.vars.get('PATH') ?? '', () => s.jobs.catchChld(u)) : dashInit(u, () => s.jobs.catchChld(u)));
  else yield* s.jobs.catchChld(u);
  if (cmd !== null) {
    if (i < argv.length) { s.name = s.arg0 = argv[i]; s.params = argv.slice(i + 1); }
    return yield* bashAtExit(u, yield* s.runSource(u, cmd, false));
  }
  if (i < argv.length) {
    const file = argv[i];
    const fd = yield* u.open(file);
    if (fd < 0) { yield* u.err(`sh: 0: cannot open ${file}: No such file\n`); return 2; }
    const b = yield* u.readAll(fd);
    yield* u.close(fd);
    s.name = file; s.arg0 = file; s.params = argv.slice(i + 1); s.scriptFile = true;
    return yield* s.runSource(u, Buffer.from(b).toString('latin1'), false);
  }
  if (interactive) {
    yield* u.sigaction(2, () => undefined);
    return yield* s.interactiveLoop(u);
  }
  const b = yield* u.readAll(0);
  return yield* s.runSource(u, Buffer.from(b).toString('latin1'), false);
}
