/**
 * A fuzz worker thread: runs `stap` in-process (option parsing and all passes, src/cli) on the
 * jobs the pool sends, with output captured and host writes recorded (hostwrites.ts).  The pool
 * (pool.ts) bounds its time (terminating a worker that hangs) and memory (resourceLimits).
 */
import { parentPort } from 'worker_threads';
import { guard, installGuard } from './hostwrites';

export interface Job {
  id: number;
  argv: string[];
  cacheDir: string;
  /** where the job may write besides the cache (the sandbox, the -o file) */
  allowed: string[];
}

export interface Outcome {
  id: number;
  code: number | null;
  out: string;
  err: string;
  /** an exception escaped the passes (its stack) */
  threw?: string;
  writes: string[];
  ms: number;
  heapMb: number;
}

const LIMIT = 64 * 1024;

installGuard();
// loaded after the guard so that module-level writes are seen too
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { parseArgs, UsageError } = require('../../src/cli/options') as typeof import('../../src/cli/options');
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { runPasses } = require('../../src/cli/passes') as typeof import('../../src/cli/passes');

async function run(job: Job): Promise<Outcome> {
  process.env.TAPSIM_CACHE_DIR = job.cacheDir;
  guard.allowed = [job.cacheDir, ...job.allowed];
  guard.violations = [];
  let out = '';
  let err = '';
  const io = {
    out: (s: string) => { if (out.length < LIMIT) out += s.slice(0, LIMIT - out.length); },
    err: (s: string) => { if (err.length < LIMIT) err += s.slice(0, LIMIT - err.length); },
  };
  const t0 = Date.now();
  let code: number | null = null;
  let threw: string | undefined;
  try {
    const opts = parseArgs(job.argv);
    code = opts === 'help' || opts === 'version' ? 0 : await runPasses(opts, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(e.message + '\n');
      code = e.exitCode;
    } else threw = e instanceof Error ? `${e.message}\n${e.stack ?? ''}` : String(e);
  }
  return { id: job.id, code, out, err, threw, writes: guard.violations.slice(0, 20), ms: Date.now() - t0, heapMb: Math.round(process.memoryUsage().heapUsed / 1e6) };
}

parentPort!.on('message', (job: Job) => {
  run(job).then((o) => parentPort!.postMessage(o), (e) => parentPort!.postMessage({
    id: job.id, code: null, out: '', err: '', threw: String((e as Error)?.stack ?? e), writes: [], ms: 0, heapMb: 0,
  } as Outcome));
});
