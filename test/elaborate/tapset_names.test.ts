/**
 * Name coverage against SystemTap 4.8: every public function, probe alias and macro of Debian's
 * systemtap 4.8-2 tapsets for x86_64 / Linux 6.1 (data/tapset-names/stap-4.8-x86_64.txt, made by
 * scripts/tapset-names/gen.py from the package) has a definition here, but for the exclusions
 * below; aliases stap resolves on Debian 6.1 (flag R) resolve with `-l` here too.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as path from 'path';
import { coverage, readReference, Coverage } from '../../scripts/tapset-names/coverage';
import { installKernelProbes } from '../../src/probes/setup';
import { builtinExists } from '../../src/runtime/builtins';
import { stdlibDir } from '../../src/elaborate';

/** Names deliberately not provided, and why (they count as missing in the figures). */
const EXCLUDED: Record<string, string> = {
  // python2.stp: CPython 2 objects and frames; Debian 12 has no Python 2
  'Py2Object_GetAttr:long (object:long, attr:string)': 'no Python 2 in Debian 12',
  'Py2Object_Repr:string (object:long)': 'no Python 2 in Debian 12',
  'python2_get_locals:string (frame:long, flags:long)': 'no Python 2 in Debian 12',
  'python2_get_var_obj:long (frame:long, var:string)': 'no Python 2 in Debian 12',
  'python2_get_var_obj:long (frame:long, var:string, index:long)': 'no Python 2 in Debian 12',
  // guru-delay.stp: busy-waits inside a probe handler; simulated time does not pass in handlers
  'mdelay:unknown (ms:long)': 'handlers take no simulated time',
  'udelay:unknown (us:long)': 'handlers take no simulated time',
  // context.stp: the sizes of the session's kernel module; the simulation builds none
  'module_size:string ()': 'no kernel module is built',
  // process probes of libpython (user-space probes: defined, stdlib/python.stp, but resolve to nothing)
  'python.function.entry': 'user-space process probes are not modelled',
  'python.function.return': 'user-space process probes are not modelled',
  // input.stp: the input.char / input.line probes (lang's part of issue 16)
  'input.char': 'being added with the input.* probe family (issue 16, behaviours)',
  'input.line': 'being added with the input.* probe family (issue 16, behaviours)',
};
/**
 * stap.* and staprun.*: process("stap")/process("staprun") marks (user-space probes), defined
 * (stdlib/stap_staticmarkers.stp: for the suggestions of `probe stap.xyz`) but resolving to nothing.
 */
const EXCLUDED_PREFIXES: Record<string, string> = {
  'stap.': 'user-space process probes of the stap program are not modelled',
  'staprun.': 'user-space process probes of staprun are not modelled',
};

function excluded(name: string): boolean {
  return name in EXCLUDED || Object.keys(EXCLUDED_PREFIXES).some((p) => name.startsWith(p));
}

describe('tapset names: SystemTap 4.8 coverage', function () {
  this.timeout(300000);
  let c: Coverage;
  const ref = readReference();

  before(() => {
    c = coverage(ref);
  });

  it('the reference list holds stap 4.8\'s names (functions, aliases with resolution flags, macros)', () => {
    expect(ref.functions.length).to.be.greaterThan(550);
    expect(ref.aliases.length).to.be.greaterThan(5000);
    expect(ref.macros.length).to.be.greaterThan(70);
    expect(ref.aliases.filter((a) => a.flag === 'R').length).to.be.greaterThan(2500);
  });

  it('defines every public function with stap\'s arity and types, but the exclusions', () => {
    expect(c.functions.missing.filter((f) => !excluded(f))).to.deep.equal([]);
    expect((c.functions.total - c.functions.missing.length) / c.functions.total).to.be.at.least(0.98);
  });

  it('defines every probe alias, but the exclusions', () => {
    expect(c.aliases.missing.filter((a) => !excluded(a))).to.deep.equal([]);
    expect((c.aliases.total - c.aliases.missing.length) / c.aliases.total).to.be.at.least(0.95);
  });

  it('resolves with -l the aliases stap 4.8 resolves on Debian 6.1 (inline-only functions the data lacks aside)', () => {
    // tty.resize (tiocswinsz), dw_syscall.compat_signalfd (do_compat_signalfd4) and
    // netdev.change_rx_flag (dev_change_rx_flags) are inline instances outside the functions the
    // machine runs, which data/kernel/inline_sites.gz does not hold; sunrpc.clnt.create_client
    // probes rpc_create_xprt... on points stap resolves through DWARF the module data lacks
    expect(c.aliases.unresolved.filter((a) => !excluded(a)).length).to.be.at.most(12);
    expect(c.aliases.resolved / c.aliases.resolvable).to.be.at.least(0.98);
  });

  it('defines every macro of the .stpm files with stap\'s number of parameters', () => {
    expect(c.macros.missing).to.deep.equal([]);
  });

  it('has a TypeScript body for every function the library declares with %{ %}', () => {
    installKernelProbes();
    const missing: string[] = [];
    for (const f of fs.readdirSync(stdlibDir()).filter((n) => n.endsWith('.stp'))) {
      const text = fs.readFileSync(path.join(stdlibDir(), f), 'latin1');
      // (`/* impl:NAME */`: the builtin NAME implements the body)
      for (const m of text.matchAll(/function\s+([A-Za-z_]\w*)\s*(?::\s*\w+)?\s*\([^)]*\)\s*%\{([^%]*)%\}/g)) {
        const name = /\/\*\s*impl:(\w+)\s*\*\//.exec(m[2])?.[1] ?? m[1];
        if (!builtinExists(name)) missing.push(`${f}: ${name}`);
      }
    }
    expect(missing).to.deep.equal([]);
  });
});
