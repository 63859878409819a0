/**
 * A fuzz campaign: scripts from generate.ts run as `stap` command lines, most in-process in the
 * worker pool (pool.ts), some as real child processes of the built command; each outcome judged:
 *
 *   - no JavaScript stack trace and no tapsim internal error or fault in the output,
 *   - exit status 0 or 1,
 *   - bounded time (a wall-clock limit per script) and memory (a heap limit per worker),
 *   - no file written (or program started) outside the cache directory, the sandbox and -o.
 *
 * Used by test/fuzz/fuzz.test.ts (a bounded time in `npm test`) and test/fuzz/run.ts
 * (`npm run fuzz -- --runs N`).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn } from 'child_process';
import * as fc from 'fast-check';
import { Pool, Result } from './pool';
import { script, mutant, invocation, Invocation } from './generate';

export interface Case {
  text: string;
  inv: Invocation;
  /** run as a child process of the built `stap` */
  child: boolean;
  origin: 'generated' | 'mutated';
}

export interface Judged {
  problems: string[];
  code: number | null;
  ms: number;
}

const STACK_FRAME = /^\s+at (?:[^\n]* \()?(?:\/|node:|file:)[^\s)]*:\d+:\d+\)?$/m;
const JS_ERROR = /\b(?:RangeError|TypeError|ReferenceError|SyntaxError|EvalError|URIError): |Maximum call stack size exceeded/;

export class Sandbox {
  readonly dir: string;
  readonly cache: string;
  readonly work: string;
  private n = 0;

  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-fuzz-'));
    this.cache = path.join(this.dir, 'cache');
    this.work = path.join(this.dir, 'work');
    fs.mkdirSync(this.cache, { mode: 0o700 });
    fs.mkdirSync(this.work);
  }

  /** A fresh directory for one case (script file, -o file). */
  caseDir(): string {
    const d = path.join(this.work, String(this.n++ % 64));
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d);
    return d;
  }

  remove(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The command line of a case (the script file written into `dir` unless inline). */
export function argvOf(c: Case, dir: string): string[] {
  const argv = [...c.inv.opts];
  if (c.inv.pass < 5) argv.push(`-p${c.inv.pass}`);
  else argv.push('-T', '0.2');
  if (c.inv.output) argv.push('-o', path.join(dir, 'out.txt'));
  // (a real command line cannot carry a NUL byte, nor one argument past Linux's MAX_ARG_STRLEN,
  // 128 KiB: spawn fails with E2BIG; such a script goes in a file)
  if (c.inv.inline && !(c.child && (c.text.includes('\0') || Buffer.byteLength(c.text, 'latin1') > 120 * 1024))) argv.push('-e', c.text);
  else {
    const f = path.join(dir, 'script.stp');
    fs.writeFileSync(f, c.text, 'latin1');
    argv.push(f);
  }
  argv.push('arg1', '2');
  return argv;
}

export function judge(r: Result, extraWrites: string[] = []): string[] {
  const problems: string[] = [];
  const text = r.out + '\n' + r.err;
  if (r.threw) problems.push('internal fault (exception)');
  if (STACK_FRAME.test(text) || JS_ERROR.test(text)) problems.push('stack trace');
  // (stap's own "semantic error: internal error: @entry is only valid in .return probes" is fine)
  if (/tapsim:? internal (?:error|fault)/i.test(text)) problems.push('internal fault');
  if (r.hang) problems.push('hang');
  else if (r.oom) problems.push('memory');
  else if (r.crashed) problems.push('worker crash');
  else if (r.code !== 0 && r.code !== 1 && !r.threw) problems.push(`exit status ${r.code}`);
  const writes = [...r.writes, ...extraWrites];
  if (writes.length) problems.push(`host write (${writes[0]})`);
  return problems;
}

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
const preload = path.join(__dirname, 'preload.js');

/** Run a case as a child process of the built command (with the write guard preloaded). */
function runChild(argv: string[], sb: Sandbox, dir: string, timeoutMs: number): Promise<{ r: Result; writes: string[] }> {
  const log = path.join(dir, 'writes.log');
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [cli, ...argv], {
      cwd: dir,
      env: {
        PATH: process.env.PATH, HOME: dir, TMPDIR: dir, TAPSIM_CACHE_DIR: sb.cache, NODE_OPTIONS: `--require ${preload}`,
        FUZZ_WRITE_LOG: log, FUZZ_ALLOWED: [sb.cache, dir, log].join('\n'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => { if (out.length < 65536) out += d.toString('latin1'); });
    child.stderr.on('data', (d: Buffer) => { if (err.length < 65536) err += d.toString('latin1'); });
    let hang = false;
    const timer = setTimeout(() => { hang = true; child.kill('SIGKILL'); }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      let writes: string[] = [];
      try {
        writes = fs.readFileSync(log, 'latin1').split('\n').filter(Boolean);
      } catch {
        // nothing written
      }
      // anything in the case directory besides the script, -o output and the log
      let left: string[] = [];
      try {
        left = fs.readdirSync(dir);
      } catch {
        // the campaign was closed meanwhile
      }
      for (const f of left) {
        if (!['script.stp', 'writes.log'].includes(f) && !/^out\.txt/.test(f)) writes.push(`left ${path.join(dir, f)}`);
      }
      resolve({ r: { id: 0, code: signal ? 128 : code, out, err, writes: [], ms: Date.now() - t0, heapMb: 0, hang }, writes });
    });
  });
}

export class Campaign {
  readonly sandbox = new Sandbox();
  readonly pool: Pool;
  private ids = 0;
  private inFlight = new Set<Promise<Judged>>();

  constructor(workers: number, readonly timeoutMs = 60000) {
    this.pool = new Pool(workers);
  }

  run(c: Case): Promise<Judged> {
    const p = this.runCase(c);
    this.inFlight.add(p);
    return p.finally(() => this.inFlight.delete(p));
  }

  private async runCase(c: Case): Promise<Judged> {
    const dir = this.sandbox.caseDir();
    const argv = argvOf(c, dir);
    if (c.child) {
      const { r, writes } = await runChild(argv, this.sandbox, dir, this.timeoutMs);
      return { problems: judge(r, writes), code: r.code, ms: r.ms };
    }
    const r = await this.pool.run({ id: ++this.ids, argv, cacheDir: this.sandbox.cache, allowed: [dir] }, this.timeoutMs);
    return { problems: judge(r), code: r.code, ms: r.ms };
  }

  /** Waits for the cases still running, then removes the sandbox. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await this.pool.close();
    this.sandbox.remove();
  }
}

/** Cases: generated and mutated scripts, one in `childEvery` run as a child process. */
export function cases(childEvery: number): fc.Arbitrary<Case> {
  return fc.tuple(
    fc.oneof({ arbitrary: script.map((text) => ({ text, origin: 'generated' as const })), weight: 3 },
      { arbitrary: mutant.map((text) => ({ text, origin: 'mutated' as const })), weight: 2 }),
    invocation, fc.nat(childEvery - 1),
  ).map(([s, inv, k]) => ({ text: s.text, origin: s.origin, inv, child: k === 0 }));
}

/** The case as a shell command line (for reports). */
export function describe(c: Case): string {
  const argv = [...c.inv.opts, ...(c.inv.pass < 5 ? [`-p${c.inv.pass}`] : ['-T', '0.2']), ...(c.inv.output ? ['-o', 'out.txt'] : [])];
  return `stap ${argv.join(' ')} ${c.inv.inline ? '-e SCRIPT' : 'script.stp'} arg1 2${c.child ? ' (child process)' : ''}`;
}
