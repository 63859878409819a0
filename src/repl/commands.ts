/**
 * What one complete input does: a REPL command (SystemTap's interactive-mode names and
 * aliases where they exist, plus the exploration commands), a declaration for the session, or
 * a statement/expression to evaluate.
 *
 * Precedence: `add` mode (after a bare `add`) > commands > declarations > statements.
 * A command word that names a session global or function followed by `=`, `[`, `(`, `++`,
 * `--`, `+=`... is stap (`list[1] = 2`); the one-letter aliases (h l a d r e q) are commands
 * unless a session global/function has that name; `delete` is the command only when followed by
 * nothing, N or A-B (`delete arr[1]` is the statement).  A lone unknown word (or a word
 * followed by an argument) is `Undefined command: "X". Try "help" or "?".`
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import { Diagnostics } from '../diag';
import { listProbes, printProgram, stdlibDir } from '../elaborate';
import { printFile } from '../parse/print';
import { KERNEL_RELEASE } from '../kernel/config';
import { crashFtraceOpsList, crashFtraceOpsChain, kprobesList, kprobeTableSummary } from '../kernel/introspect';
import { tracepoint, tracepointNames } from '../kernel/tracepoint';
import type { StapOptions } from '../cli/options';
import { Compiler, CompileSettings, ReplSession, summary } from './session';
import { SimSystem } from './run';
import { evaluate } from './eval';
import { COMMANDS, KERNEL_VIEWS, Completer } from './complete';
import { isDeclaration } from './scan';
import { hostErrorText } from '../runtime/host_errors';

type Writer = (s: string) => void;

export interface ReplIO {
  out: Writer;
  err: Writer;
  /** stdin and stdout are a terminal (pacing hint, timing report). */
  tty: boolean;
  /** Dim helper text (colours only on a terminal). */
  note: (s: string) => string;
  /** Hand the terminal to a child (edit) and take it back. */
  suspend?: () => void;
  resume?: () => void;
  /** What the CLI adds to each simulated machine (stap as a program in it). */
  setupMachine?: (m: import('../machine/machine').Machine) => void;
}

const ALIASES = new Map(Object.entries({ h: 'help', '?': 'help', l: 'list', a: 'add', d: 'delete', r: 'run', e: 'edit', q: 'quit' }));

const OPTION_NAMES = ['verbose', 'guru_mode', 'suppress_warnings', 'panic_warnings', 'timing', 'unoptimized', 'target_pid', 'cmd', 'last_pass'];

export const HELP = `Commands (aliases in parentheses):
  help (h, ?)                 this text
  list (l)                    the session script, numbered
  add (a) [DECLARATION]       append a declaration without replacing (alone: the next input)
  delete (d) [N|A-B]          delete session items (no argument: all of them)
  load FILE                   add the declarations of FILE
  save FILE                   write the session script to FILE
  run (r) [DURATION] [-c CMD] run the session on the simulated system: DURATION of simulated
                              time (1s, 250ms, 2m; plain numbers are seconds); without one,
                              until Ctrl-C (paced to the wall clock) or exit(); -c 'CMD': run
                              CMD on the simulated machine, target() is its pid, stop when it exits
  reset                       fresh kernel, machine and globals (the script stays)
  globals                     print every global as stap's end-of-run display does
  probes [-L] PATTERN         list matching probe points (like stap -l / -L)
  sh CMD                      run CMD in a root shell on the simulated machine (tracefs at
                              /sys/kernel/tracing, stap, trace-cmd ...); Ctrl-C interrupts it
  kernel ftrace_ops|kprobes|tracepoints|tasks
                              the simulated kernel's tracing tables and task list
  seed N                      seed for runs; restarts the simulated machine with it
  set OPTION VALUE            options: ${OPTION_NAMES.join(' ')}
  show [OPTION]               option values
  sample [KEYWORDS]           sample scripts matching the keywords (then: load FILE)
  edit (e)                    edit the session script in $EDITOR
  quit (q)                    leave (also Ctrl-D)
Anything else is stap.  Declarations (global, function, probe) are added to the session and
checked at once; a redefinition replaces the old one.  A statement or expression runs at once,
as a begin probe with the session's globals and functions; an expression's value is printed.
Input continues (prompt "stap>>> ") while braces or parentheses are open.  TAB completes.
`;

/** `1s`, `250ms`, `2m`, `1.5` (seconds), `10us`, `100ns` -> ns; null if not a duration. */
export function parseDuration(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?|\.\d+)(ns|us|ms|s|m|h)?$/.exec(s);
  if (!m) return null;
  const mult: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
  return Math.round(Number(m[1]) * mult[m[2] ?? 's']);
}

/** Shell-like words: quotes group, backslash escapes. */
export function words(s: string): string[] | null {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
      continue;
    }
    if (c === "'" || c === '"') {
      q = c;
      has = true;
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (q) return null;
  if (has) out.push(cur);
  return out;
}

interface Snapshot {
  ftrace_ops: string;
  kprobes: string;
  tracepoints: string;
}

export class Repl {
  readonly session: ReplSession;
  readonly sys: SimSystem;
  readonly completer: Completer;
  settings: CompileSettings;
  seed: number;
  /** `set` options that are not compile settings. */
  timing: boolean;
  targetPid: number | undefined;
  cmd: string | undefined;
  lastPass = 5;
  /** A bare `add` was typed: the next input is appended. */
  pendingAdd = false;
  quit = false;
  private snapshot: Snapshot | null = null;

  constructor(private opts: StapOptions, private io: ReplIO) {
    this.settings = {
      guru: opts.guru, suppressWarnings: opts.suppressWarnings, warningsAreErrors: opts.warningsAreErrors, unoptimized: opts.unoptimized,
      verbose: opts.verbose, args: opts.args, defines: opts.defines, compatible: opts.compatible, privilege: opts.privilege,
    };
    this.seed = opts.seed;
    this.timing = opts.timing;
    this.targetPid = opts.targetPid;
    this.cmd = opts.command;
    this.session = new ReplSession(new Compiler(this.settings, opts.includeDirs, io.err));
    this.sys = new SimSystem(this.seed, opts.cpus, io.setupMachine);
    this.completer = new Completer(this.session);
  }

  banner(): string {
    return `tapsim stap interactive mode: simulated Linux ${KERNEL_RELEASE}, ${this.sys.ncpus} CPUs, seed ${this.seed}\n` +
      `Example commands: 'probes', 'add', 'run', 'globals', 'help'\n`;
  }

  /** Warm the passes (tapset index, kernel data) so the first real input answers at once. */
  warm(): void {
    const quiet = () => undefined;
    const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, quiet);
    const f = this.session.compiler.parse({ name: '<warm>', text: 'global w probe kernel.function("vfs_read") { w++ } probe timer.ms(10) { w++ }', isTapset: false }, diag);
    if (f) this.session.compiler.build([f], diag, quiet);
    this.completer.complete('probe kernel.function("vfs_');
  }

  private known(word: string): boolean {
    return this.session.globalNames().includes(word) || this.session.functionNames().includes(word);
  }

  /** Handle one complete input. */
  async handle(text: string): Promise<void> {
    const io = this.io;
    if (text.trim() === '') {
      if (this.pendingAdd) io.out(io.note('(add: nothing added)\n'));
      this.pendingAdd = false;
      return;
    }
    if (this.pendingAdd) {
      this.pendingAdd = false;
      this.report(this.session.add(text, '<input>', io.err, false));
      return;
    }
    const m = /^\s*(\S+?)(?=\s|$)\s*([\s\S]*?)\s*$/.exec(text);
    const word = m ? m[1] : '';
    const rest = m ? m[2] : '';
    const cmd = this.commandOf(word, rest);
    if (cmd) {
      await this.command(cmd, rest);
      return;
    }
    if (isDeclaration(text)) {
      if (/^\s*@define\b/.test(text)) {
        io.err('@define macros apply within one file: put them with their uses in a file and `load` it\n');
        return;
      }
      this.report(this.session.add(text, '<input>', io.err, true));
      return;
    }
    if (/^[A-Za-z_]\w*$/.test(word) && !this.known(word) && !this.isStapWord(word) &&
        (rest === '' || /^[A-Za-z0-9_"'\/.-]/.test(rest)) && !/^\(/.test(rest)) {
      io.err(`Undefined command: "${word}". Try "help" or "?".\n`);
      return;
    }
    await evaluate({ session: this.session, sys: this.sys, out: io.out, err: io.err, seed: this.seed }, text);
  }

  /** Keywords and functions a statement may start with. */
  private isStapWord(word: string): boolean {
    return ['if', 'for', 'foreach', 'while', 'delete', 'next', 'return', 'try', 'break', 'continue'].includes(word)
      || this.session.compiler.library.filesDefiningFunction(word).length > 0;
  }

  private commandOf(word: string, rest: string): string | null {
    const stapy = /^(=[^=]|\[|\(|\+\+|--|[-+*/%.|&^]=|<<<|<<=|>>=)/.test(rest);
    if (COMMANDS.includes(word)) {
      if (this.known(word) && (stapy || rest === '')) return null;
      if (word === 'delete' && rest !== '' && !/^\d+(\s*-\s*\d+)?$/.test(rest)) return null;
      return word;
    }
    const full = ALIASES.get(word);
    if (!full) return null;
    if (word !== '?' && this.known(word)) return null;
    if (full === 'delete' && rest !== '' && !/^\d+(\s*-\s*\d+)?$/.test(rest)) return null;
    if (stapy) return null;
    return full;
  }

  private report(r: { ok: boolean; added: number; replaced: number }): void {
    if (!r.ok) return;
    const parts: string[] = [];
    if (r.added) parts.push(`${r.added} added`);
    if (r.replaced) parts.push(`${r.replaced} replaced`);
    // quiet on success when one item was added, like a shell; replacing is worth a note
    if (r.replaced || r.added > 1) this.io.out(this.io.note(`(${parts.join(', ')})\n`));
  }

  private async command(cmd: string, rest: string): Promise<void> {
    const io = this.io;
    switch (cmd) {
      case 'help':
        io.out(HELP);
        return;
      case 'list':
        io.out(this.session.list());
        return;
      case 'add':
        if (rest === '') this.pendingAdd = true;
        else this.report(this.session.add(rest, '<input>', io.err, false));
        return;
      case 'delete':
        io.out(this.session.remove(rest));
        return;
      case 'load': {
        const w = words(rest);
        if (!w || w.length !== 1) {
          io.err('load: expected one FILE\n');
          return;
        }
        const r = this.session.load(expandHome(w[0]), io.err);
        if (r && r.ok) io.out(io.note(`(loaded ${w[0]}: ${r.added} added${r.replaced ? `, ${r.replaced} replaced` : ''})\n`));
        return;
      }
      case 'save': {
        const w = words(rest);
        if (!w || w.length !== 1) {
          io.err('save: expected one FILE\n');
          return;
        }
        try {
          io.out(io.note(this.session.save(expandHome(w[0]))));
        } catch (e) {
          io.err(`save: cannot write ${w[0]}: ${hostErrorText(e)}\n`);
        }
        return;
      }
      case 'run':
        await this.run(rest);
        return;
      case 'sh': {
        if (!rest.trim()) {
          this.io.err("sh: a command is needed, e.g. sh 'cat /sys/kernel/tracing/available_tracers'\n");
          return;
        }
        const st = await this.sys.shell(rest, this.io.out, this.io.err);
        if (st !== 0) this.io.out(this.io.note(`(exit status ${st})\n`));
        return;
      }
      case 'reset':
        this.sys.reset(this.seed);
        this.session.store.clear();
        this.snapshot = null;
        io.out(io.note('(fresh kernel, machine and globals; the script is kept)\n'));
        return;
      case 'globals':
        io.out(this.session.globals());
        return;
      case 'probes':
        this.probes(rest);
        return;
      case 'kernel':
        this.kernel(rest);
        return;
      case 'seed': {
        if (!/^\d+$/.test(rest)) {
          io.err(rest === '' ? `seed ${this.seed}\n` : `seed: expected a non-negative integer, not "${rest}"\n`);
          return;
        }
        this.seed = Number(rest);
        this.sys.reset(this.seed);
        this.snapshot = null;
        io.out(io.note(`(seed ${this.seed}; the simulated machine restarted with it)\n`));
        return;
      }
      case 'set':
        this.set(rest);
        return;
      case 'show':
        this.show(rest);
        return;
      case 'sample':
        this.sample(rest);
        return;
      case 'edit':
        this.edit();
        return;
      case 'quit':
        this.quit = true;
        return;
    }
  }

  private async run(rest: string): Promise<void> {
    const io = this.io;
    const w = words(rest);
    if (!w) {
      io.err('run: unterminated quote\n');
      return;
    }
    let durationNs: number | undefined;
    let command = this.cmd;
    for (let i = 0; i < w.length; i++) {
      if (w[i] === '-c') {
        if (i + 1 >= w.length) {
          io.err("run: -c needs a command, e.g. run -c 'cat /etc/passwd'\n");
          return;
        }
        command = w.slice(i + 1).join(' ');
        break;
      }
      const d = parseDuration(w[i]);
      if (d === null || durationNs !== undefined) {
        io.err(`run: expected a duration (1s, 250ms, 2m) or -c 'CMD', not "${w[i]}"\n`);
        return;
      }
      durationNs = d;
    }
    const c = this.session.compiler;
    const diag = c.diagnostics(io.err);
    const files = this.session.parseItems(this.session.items, diag);
    if (!files) {
      c.parseFailed(diag, io.err);
      return;
    }
    if (this.lastPass === 1) {
      io.out('# parse tree dump\n' + files.map(printFile).join('') + '\n');
      return;
    }
    const built = c.build(files, diag, io.err, this.lastPass === 2 ? 2 : 3);
    if (!built) return;
    if (this.lastPass === 2) {
      io.out(printProgram(built.program, { globalDisplay: true }));
      return;
    }
    const tr = built.tr!;
    this.session.noteMeta(tr);
    if (this.lastPass <= 4) {
      if (this.lastPass === 3) io.out(tr.source);
      return;
    }
    const pace = durationNs === undefined && command === undefined;
    if (pace && io.tty) io.out(io.note('(running; Ctrl-C stops)\n'));
    const r = await this.sys.run({
      tr, store: this.session.store, out: io.out, err: io.err, durationNs, command, pace, display: true, seed: this.seed,
      extra: { timing: this.timing, stdoutIsTty: io.tty, defines: this.settings.defines, verbose: this.settings.verbose,
        targetPid: command === undefined ? this.targetPid : undefined, suppressHandlerErrors: this.opts.suppressHandlerErrors },
      onArmed: () => {
        this.snapshot = this.kernelSnapshot();
      },
    });
    if (r.status !== 0) io.err('Pass 5: run failed.  [man error::pass5]\n');
  }

  private probes(rest: string): void {
    const io = this.io;
    let vars = false;
    let pattern = rest.trim();
    const m = /^-([lL])\s+([\s\S]+)$/.exec(pattern);
    if (m) {
      vars = m[1] === 'L';
      pattern = m[2].trim();
    }
    if (pattern === '') {
      io.err('probes: expected a probe point PATTERN, e.g. probes kernel.function("vfs_*")\n');
      return;
    }
    const c = this.session.compiler;
    const quiet = new Diagnostics({ verbose: 0, suppressWarnings: true }, this.settings.verbose >= 2 ? io.err : () => undefined);
    const f = c.parse({ name: '<input>', text: `probe ${pattern} {}`, isTapset: false }, quiet);
    if (!f) {
      io.err(`probes: cannot parse the probe point "${pattern}"\n`);
      return;
    }
    const own = this.session.parseItems(this.session.items.filter((i) => i.kind === 'alias'), quiet) ?? [];
    const s = this.settings;
    const lines = listProbes([f, ...own], { guru: s.guru, unoptimized: s.unoptimized, args: s.args, usedArgs: new Set(), library: c.library,
      verbose: s.verbose, listing: true, compatible: s.compatible }, quiet, vars);
    if (lines.length === 0) io.err(`no probe point matches ${pattern}\n`);
    io.out(lines.map((l) => l + '\n').join(''));
  }

  private kernelSnapshot(): Snapshot {
    return { ftrace_ops: ftraceView(), kprobes: kprobesView(), tracepoints: tracepointsView() };
  }

  private kernel(rest: string): void {
    const io = this.io;
    const view = rest.trim();
    if (!KERNEL_VIEWS.includes(view)) {
      io.err(`kernel: expected one of ${KERNEL_VIEWS.join(', ')}\n`);
      return;
    }
    if (view === 'tasks') {
      io.out(this.sys.tasks());
      return;
    }
    const live = view === 'ftrace_ops' ? ftraceView() : view === 'kprobes' ? kprobesView() : tracepointsView();
    const snap = this.snapshot?.[view as keyof Snapshot];
    if (snap !== undefined) {
      io.out(io.note('# during the last run, with the session\'s probes registered:\n') + snap);
      io.out(io.note('# now:\n'));
    }
    io.out(live);
  }

  private set(rest: string): void {
    const io = this.io;
    const m = /^(\S+)\s*([\s\S]*)$/.exec(rest);
    if (!m) {
      io.err('set: expected OPTION VALUE\n');
      return;
    }
    const [, name, value] = m;
    if (!OPTION_NAMES.includes(name)) {
      io.err(`Invalid option name "${name}". Try "show" for the options.\n`);
      return;
    }
    const bool = (): boolean | null => (/^(1|true|yes|on)$/i.test(value) ? true : /^(0|false|no|off)$/i.test(value) ? false : null);
    const num = (): number | null => (/^\d+$/.test(value) ? Number(value) : null);
    const bad = () => io.err(`set ${name}: invalid value "${value}"\n`);
    switch (name) {
      case 'verbose': {
        const n = num();
        if (n === null) return bad();
        this.settings.verbose = n;
        break;
      }
      case 'guru_mode': case 'suppress_warnings': case 'panic_warnings': case 'timing': case 'unoptimized': {
        const b = bool();
        if (b === null) return bad();
        if (name === 'guru_mode') {
          if (b !== this.settings.guru) {
            this.settings.guru = b;
            this.session.compiler = new Compiler(this.settings, this.opts.includeDirs, io.err);
          }
        } else if (name === 'suppress_warnings') this.settings.suppressWarnings = b;
        else if (name === 'panic_warnings') this.settings.warningsAreErrors = b;
        else if (name === 'timing') this.timing = b;
        else this.settings.unoptimized = b;
        break;
      }
      case 'target_pid': {
        const n = num();
        if (n === null) return bad();
        this.targetPid = n === 0 ? undefined : n;
        break;
      }
      case 'cmd':
        this.cmd = value === '' ? undefined : words(value)?.join(' ') ?? value;
        break;
      case 'last_pass': {
        const n = num();
        if (n === null || n < 1 || n > 5) return bad();
        this.lastPass = n;
        break;
      }
    }
  }

  private optionValue(name: string): string {
    const b = (x: boolean) => (x ? '1' : '0');
    switch (name) {
      case 'verbose': return String(this.settings.verbose);
      case 'guru_mode': return b(this.settings.guru);
      case 'suppress_warnings': return b(this.settings.suppressWarnings);
      case 'panic_warnings': return b(this.settings.warningsAreErrors);
      case 'timing': return b(this.timing);
      case 'unoptimized': return b(this.settings.unoptimized);
      case 'target_pid': return String(this.targetPid ?? 0);
      case 'cmd': return this.cmd === undefined ? '""' : JSON.stringify(this.cmd);
      case 'last_pass': return String(this.lastPass);
    }
    return '';
  }

  private show(rest: string): void {
    const name = rest.trim();
    if (name && !OPTION_NAMES.includes(name)) {
      this.io.err(`Invalid option name "${name}". Try "show" for the options.\n`);
      return;
    }
    for (const n of name ? [name] : OPTION_NAMES) this.io.out(`${n}: ${this.optionValue(n)}\n`);
  }

  private sample(rest: string): void {
    const dir = samplesDir();
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((n) => n.endsWith('.stp')).sort();
    } catch {
      names = [];
    }
    const keys = rest.toLowerCase().split(/\s+/).filter(Boolean);
    let any = false;
    for (const n of names) {
      let text = '';
      try {
        text = fs.readFileSync(path.join(dir, n), 'latin1');
      } catch {
        continue;
      }
      const hay = (n + '\n' + text).toLowerCase();
      if (!keys.every((k) => hay.includes(k))) continue;
      const about = /^\s*(?:#|\/\/)\s*(.+)$/m.exec(text.replace(/^#!.*\n/, ''));
      this.io.out(`${path.join(path.relative(process.cwd(), dir) || '.', n)}: ${about ? about[1].trim() : ''}\n`);
      any = true;
    }
    if (!any) this.io.err(keys.length ? `no sample matches: ${keys.join(' ')}\n` : `no samples in ${dir}\n`);
  }

  private edit(): void {
    const io = this.io;
    if (!io.tty) {
      io.err('edit: needs a terminal\n');
      return;
    }
    // a new private directory (mkdtemp: mode 0700, a name nobody could guess or pre-create) and
    // a file made in it exclusively: no symlink or file planted beforehand is ever followed
    let dir: string;
    let file: string;
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-edit-'));
      file = path.join(dir, 'session.stp');
      const fd = fs.openSync(file, 'wx', 0o600);
      try {
        fs.writeFileSync(fd, this.session.script(), 'latin1');
      } finally {
        fs.closeSync(fd);
      }
    } catch (e) {
      io.err(`edit: cannot write a temporary file: ${hostErrorText(e)}\n`);
      return;
    }
    const cleanup = () => fs.rmSync(dir, { recursive: true, force: true });
    const editor = process.env.VISUAL || process.env.EDITOR || 'vi';
    io.suspend?.();
    const r = spawnSync('/bin/sh', ['-c', `${editor} "$1"`, 'sh', file], { stdio: 'inherit' });
    io.resume?.();
    if (r.error || r.status !== 0) {
      cleanup();
      io.err(`edit: ${editor} failed${r.error ? `: ${r.error.message}` : ` with status ${r.status}`}\n`);
      return;
    }
    let text: string;
    try {
      text = fs.readFileSync(file, 'latin1');
    } catch (e) {
      io.err(`edit: cannot read the edited script: ${hostErrorText(e)}\n`);
      return;
    } finally {
      cleanup();
    }
    const old = this.session.items;
    this.session.items = [];
    const r2 = text.trim() === '' ? { ok: true, added: 0, replaced: 0 } : this.session.add(text, '<input>', io.err, false);
    if (!r2.ok) {
      this.session.items = old;
      io.err('edit: the session script is unchanged\n');
    } else io.out(io.note(`(${this.session.items.length} item${this.session.items.length === 1 ? '' : 's'})\n`));
  }

  /** Items in one line each (for tests and `list` summaries). */
  summaries(): string[] {
    return this.session.items.map(summary);
  }
}

export function ftraceView(): string {
  return `crash> ftrace_ops_list\n${crashFtraceOpsList()}\n${crashFtraceOpsChain()}\n`;
}

export function kprobesView(): string {
  const list = kprobesList();
  if (list.length === 0) return '(no kprobes registered)\n';
  return '# /sys/kernel/debug/kprobes/list\n' + list.map((l) => l + '\n').join('') +
    '# kprobe_table\n' + kprobeTableSummary().map((l) => l + '\n').join('');
}

export function tracepointsView(): string {
  const rows: string[] = [];
  for (const n of tracepointNames()) {
    const tp = tracepoint(n);
    if (tp && tp.funcs.length) rows.push(`${n}: ${tp.funcs.length} probe${tp.funcs.length === 1 ? '' : 's'}${tp.enabled ? '' : ' (disabled)'}`);
  }
  if (rows.length === 0) return `(no tracepoint has a probe; ${tracepointNames().length} tracepoints)\n`;
  return rows.map((r) => r + '\n').join('');
}

function samplesDir(): string {
  return path.join(stdlibDir(), '..', 'samples');
}

function expandHome(p: string): string {
  if (p === '~' || p.startsWith('~/')) return path.join(process.env.HOME || os.homedir(), p.slice(1));
  return p;
}
