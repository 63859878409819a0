/**
 * Probes the build found pass 2's optimiser elides (src/elaborate/alias_expansions.ts
 * RecordedElision): in a `probe syscall.* {}` their bodies are not made, only the session
 * look-ups resolving them would make are replayed, and the optimiser elides them at the
 * recorded iteration.  Checked here in process: that the bodies really are left unmade where
 * they may be and made where they may not, and that a replay whose look-ups find something
 * else than the build's falls back to the body and prints what the slow path prints.  (The
 * same outputs through the command line, against the slow path: alias_table.test.ts.)
 */
import { expect } from 'chai';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { elaborate, printProgram, TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { Resolver } from '../../src/elaborate/symbols';
import type { Lookup } from '../../src/elaborate/aliases';
import { installKernelProbes } from '../../src/probes/setup';

interface Run {
  text: string;
  /** replayLookups calls that held, and that did not */
  replayed: number;
  refused: number;
}

/** Pass 2 of `script` (-p2 output and messages); `tamper` may change the look-ups a replay is given. */
function run(script: string, opts: { u?: boolean; warningsAreErrors?: boolean; tamper?: (l: readonly Lookup[]) => readonly Lookup[] } = {}): Run {
  let err = '';
  const diag = new Diagnostics({ verbose: 1, suppressWarnings: false, warningsAreErrors: opts.warningsAreErrors }, (s) => { err += s; });
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: null });
  const f = parseFile({ name: '<input>', text: script, isTapset: false }, { args: [], guru: false, libraryMacros: library.macros() as never }, diag);
  const proto = Resolver.prototype as unknown as { replayLookups(l: readonly Lookup[], s: unknown): boolean };
  const replay = proto.replayLookups;
  const r: Run = { text: '', replayed: 0, refused: 0 };
  proto.replayLookups = function (this: Resolver, l: readonly Lookup[], scope: unknown): boolean {
    const ok = replay.call(this, opts.tamper ? opts.tamper(l) : l, scope);
    if (ok) r.replayed++;
    else r.refused++;
    return ok;
  };
  let prog: A.Program | null;
  try {
    prog = f && elaborate([f], { guru: false, unoptimized: opts.u, library, args: [] }, diag);
  } finally {
    proto.replayLookups = replay;
  }
  r.text = `${prog ? printProgram(prog) : ''}--\n${err}`;
  return r;
}

/** The script with an alias under `kprobe` (a root the build's records tried): pass 2 takes the slow path. */
const slow = (script: string): string => `${script}\nprobe kprobe.tapsim_unused = never {}\n`;

describe('elided probe bodies (the build found them elided; pass 2 does not make them)', function () {
  this.timeout(120000);
  before(() => installKernelProbes());

  it('probe syscall.* {}: hundreds of bodies unmade, the same output as the slow path', () => {
    const fast = run('probe syscall.* {}');
    expect(fast.replayed).to.be.greaterThan(300);
    expect(fast.refused).to.equal(0);
    const s = run(slow('probe syscall.* {}'));
    expect(s.replayed).to.equal(0);
    expect(fast.text).to.equal(s.text);
    expect(fast.text).to.contain("Probe 'kprobe' has been elided");
    expect(fast.text).to.contain('kernel.trace("raw_syscalls:sys_enter")');
  });

  it('made where the optimiser does not run as the build found it, or the body is not empty', () => {
    expect(run('probe syscall.* {}', { u: true }).replayed).to.equal(0);
    expect(run('probe syscall.* {}', { warningsAreErrors: true }).replayed).to.equal(0);
    expect(run('probe syscall.read { println(fd) }').replayed).to.equal(0);
  });

  it('made where the script declares a name a body or its functions resolve', () => {
    const plain = run('probe syscall.read, syscall.close {}');
    expect(plain.replayed).to.equal(2);
    for (const script of ['global fd probe syscall.read, syscall.close {} probe end { println(fd) }',
      'function __sc_argu32:long(n:long) { return n + 1 } probe syscall.read, syscall.close {} probe begin { println(__sc_argu32(1)) }']) {
      const fast = run(script);
      expect(fast.replayed, script).to.be.lessThan(plain.replayed);
      expect(fast.text, script).to.equal(run(slow(script)).text);
    }
  });

  it('a look-up that finds something else than the build did: the body is made and resolved, as the slow path does', () => {
    // (the last function look-up of each replay names other declarations: refused after the
    // others have loaded their files and queued their functions)
    const tamper = (ls: readonly Lookup[]): readonly Lookup[] => {
      const i = ls.map((l) => l.fn).lastIndexOf(true);
      return i < 0 ? ls : ls.map((l, j) => (j === i && l.fn ? { ...l, cands: `${l.cands}\nelsewhere:1:1` } : l));
    };
    for (const script of ['probe syscall.* {}', 'probe syscall.open, nd_syscall.read.return {} probe begin { exit() }']) {
      const fast = run(script);
      const tampered = run(script, { tamper });
      expect(tampered.refused, script).to.be.greaterThan(0);
      expect(tampered.text, script).to.equal(fast.text);
      expect(tampered.text, script).to.equal(run(slow(script)).text);
    }
  });
});
