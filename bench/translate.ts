/**
 * Translator/runtime benchmarks: generated probe handlers against the same logic written by
 * hand in JavaScript (a closure over its globals, called once per simulated hit exactly like
 * the generated handler), measured in one run as time ratios (generated / hand-written).
 *   (a) map-and-stats body: `counts[name] <<< bytes; total += bytes * 2`, 10M calls
 *   (b) arithmetic-heavy body on small numbers, 10M calls
 * Each side is warmed up, then timed alternately several times; the median ratio is reported.
 */
import type * as A from '../src/ast';
import { Diagnostics } from '../src/diag';
import { parseFile } from '../src/parse';
import { elaborate, TapsetLibrary, stdlibDir } from '../src/elaborate';
import { translate } from '../src/translate';
import { Engine, Module } from '../src/runtime/engine';

const N = 10_000_000;

function load(text: string): { mod: Module; engine: Engine; never: number } {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
  const src: A.SourceFile = { name: '<bench>', text, isTapset: false };
  const f = parseFile(src, { args: [], guru: false }, diag);
  if (!f) throw new Error('bench script failed to parse');
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag });
  const prog = elaborate([f], { guru: false, args: [], library, unoptimized: true }, diag);
  if (!prog) throw new Error('bench script failed to elaborate');
  const tr = translate(prog, {});
  const engine = new Engine(tr, { stdout: () => undefined, stderr: () => undefined, handleSignals: false });
  return { mod: engine.load(), engine, never: tr.probes.findIndex((p) => p.family === 'never') };
}

function time(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

const NAMES = ['bash', 'sshd', 'systemd', 'nginx', 'postgres', 'cron', 'node', 'python3'];

function benchMapStats(): Record<string, string | number> {
  const { mod, engine, never } = load(`
global counts, total, name, bytes
probe never { counts[name] <<< bytes; total += bytes * 2 }
probe begin { name = "init"; bytes = 0 }
probe end { println(@count(counts["bash"]), total) }`);
  const handler = mod.probes[never];
  const setName = mod.globals.get('name')!.set!;
  const setBytes = mod.globals.get('bytes')!.set!;
  const ctx = engine.newContext({ index: 0, family: 'never', pp: 'never', pn: 'never', data: {}, chain: [], where: '', fn: 'p_0' }, { task: engine.stapioTask, cpu: 0 });
  const gen = () => {
    for (let i = 0; i < N; i++) {
      setName(NAMES[i & 7]);
      setBytes(i & 4095);
      handler(ctx);
    }
  };
  // hand-written: the same handler as a plain JS closure over its globals (count/sum/min/max
  // per key in a Map, a numeric total), called the same way
  const hw = (() => {
    const counts = new Map<string, { count: number; sum: number; min: number; max: number }>();
    let total = 0;
    let name = '';
    let bytes = 0;
    return {
      setName: (v: string) => { name = v; },
      setBytes: (v: number) => { bytes = v; },
      handler: () => {
        let s = counts.get(name);
        if (s === undefined) counts.set(name, (s = { count: 0, sum: 0, min: bytes, max: bytes }));
        s.count++;
        s.sum += bytes;
        if (bytes < s.min) s.min = bytes;
        if (bytes > s.max) s.max = bytes;
        total += bytes * 2;
      },
    };
  })();
  const hand = () => {
    for (let i = 0; i < N; i++) {
      hw.setName(NAMES[i & 7]);
      hw.setBytes(i & 4095);
      hw.handler();
    }
  };
  return ratio('mapStats', gen, hand);
}

function benchArith(): Record<string, string | number> {
  const { mod, engine, never } = load(`
global acc, x
probe begin { x = 0; acc = 0 }
probe never {
  a = x + 3; b = a * 7 - x; c = (a ^ b) & 1023; d = c % 13 + (b / 5)
  acc = (acc + d * 3 - c) % 1000003
}`);
  const handler = mod.probes[never];
  const setX = mod.globals.get('x')!.set!;
  const ctx = engine.newContext({ index: 0, family: 'never', pp: 'never', pn: 'never', data: {}, chain: [], where: '', fn: 'p_0' }, { task: engine.stapioTask, cpu: 0 });
  const gen = () => {
    for (let i = 0; i < N; i++) {
      setX(i & 65535);
      handler(ctx);
    }
  };
  const hw = (() => {
    let acc = 0;
    let x = 0;
    return {
      setX: (v: number) => { x = v; },
      handler: () => {
        const a = x + 3;
        const b = a * 7 - x;
        const c = (a ^ b) & 1023;
        const d = (c % 13) + Math.trunc(b / 5);
        acc = (acc + d * 3 - c) % 1000003;
      },
      get: () => acc,
    };
  })();
  const hand = () => {
    for (let i = 0; i < N; i++) {
      hw.setX(i & 65535);
      hw.handler();
    }
  };
  return ratio('arith', gen, hand);
}

function ratio(name: string, gen: () => void, hand: () => void): Record<string, string | number> {
  gen();
  hand();
  const ratios: number[] = [];
  const g: number[] = [];
  const h: number[] = [];
  for (let r = 0; r < 5; r++) {
    const tg = time(gen);
    const th = time(hand);
    g.push(tg);
    h.push(th);
    ratios.push(tg / th);
  }
  return {
    [`${name}_generated_ms`]: Math.round(median(g)),
    [`${name}_handwritten_ms`]: Math.round(median(h)),
    [`${name}_ratio`]: Number(median(ratios).toFixed(2)),
  };
}

export async function benchTranslate(): Promise<Record<string, string | number>> {
  const only = process.env.TAPSIM_BENCH_ONLY;
  return { calls: N, ...(only === "arith" ? {} : benchMapStats()), ...(only === "mapStats" ? {} : benchArith()) };
}

if (require.main === module) {
  benchTranslate().then((r) => console.log(JSON.stringify(r, null, 2)));
}
