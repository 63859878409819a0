/**
 * The build's table of stdlib aliases that resolve to nothing (src/elaborate/alias_table.ts):
 * checked against the slow path (each alias expanded the way pass 2 expands an optional use of
 * it, src/elaborate/alias_table_make.ts) for a sample of the aliases it lists and of those it
 * does not, and end to end: `-p2`, `-p2 -v`, `-l` and `-L` print the same bytes whether pass 2
 * skips the listed aliases (and replays the build's records of what aliases derive:
 * alias_expansions.ts) or not (a script alias under one of the table's roots turns both off for
 * its run).  The expected outputs are the slow path's, the behaviour checked against
 * real-stap 4.8 by the golden and oracle tests.
 */
import { expect } from 'chai';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawnSync } from 'child_process';
import type * as A from '../../src/ast';
import { Diagnostics } from '../../src/diag';
import { TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { AliasTable, builtAliasTableFile, AliasTableData, kernelDataStamps } from '../../src/elaborate/alias_table';
import { slowPath, expandsToNothing, SlowPath } from '../../src/elaborate/alias_table_make';
import { renderComponents } from '../../src/elaborate/util';
import { installKernelProbes } from '../../src/probes/setup';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');

function library(): TapsetLibrary {
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, () => undefined);
  return new TapsetLibrary({ dirs: [stdlibDir()], parse: { args: [], guru: false }, diag, cacheDir: null });
}

function aliasName(d: A.AliasDecl): string {
  return renderComponents(d.names[0].components);
}

/** Every k-th element and the named ones. */
function sample<T>(all: T[], k: number, pick: (x: T) => boolean): T[] {
  return all.filter((x, i) => i % k === 0 || pick(x));
}

describe('alias table (stdlib aliases that resolve to nothing on this kernel)', function () {
  this.timeout(300000);
  let lib: TapsetLibrary;
  let table: AliasTable;
  let data: AliasTableData;
  let sp: SlowPath;

  before(() => {
    installKernelProbes();
    lib = library();
    table = AliasTable.load(lib.key, stdlibDir())!;
    data = JSON.parse(fs.readFileSync(builtAliasTableFile(), 'utf8')) as AliasTableData;
    sp = slowPath(lib);
  });

  /** The aliases of a stdlib file the table lists, and those it does not. */
  function split(rel: string): { listed: A.AliasDecl[]; unlisted: A.AliasDecl[] } {
    const f = path.join(stdlibDir(), rel);
    const ast = sp.files.get(f)!;
    const fails = new Set(table.failures(f, lib.fileStamp(f)) ?? []);
    return { listed: ast.aliases.filter((_, i) => fails.has(i)), unlisted: ast.aliases.filter((_, i) => !fails.has(i)) };
  }

  it('the build made a table that holds for this checkout', () => {
    expect(table, 'dist/alias-table.json missing or stale after a build').to.not.equal(null);
    expect(table.holds((r) => lib.filesDefiningAliasRoot(r), [])).to.equal(true);
    // the flavours 6.1 has no function for: dw_syscall (sys_NAME), nd1_syscall (sys_NAME)
    const { listed } = split('syscalls.stp');
    const names = new Set(listed.map(aliasName));
    expect(names.has('dw_syscall.read')).to.equal(true);
    expect(names.has('dw_syscall.read.return')).to.equal(true);
    expect(names.has('syscall.read')).to.equal(false);
    expect(names.has('dw_syscall.ni_syscall')).to.equal(false); // sys_ni_syscall exists
    const nd = new Set(split('nd_syscalls.stp').listed.map(aliasName));
    expect(nd.has('nd1_syscall.open')).to.equal(true);
    expect(nd.has('nd2_syscall.open')).to.equal(false);
    expect(nd.has('tp_syscall.read')).to.equal(false);
  });

  for (const rel of ['syscalls.stp', 'nd_syscalls.stp', 'vfs.stp', 'nfs.stp', 'generic_fop.stp']) {
    it(`${rel}: a sample of the aliases listed expands to nothing, and of those not listed to something or a message`, () => {
      const { listed, unlisted } = split(rel);
      const key = (n: string): boolean => /^(dw_|nd1_|nd2_|tp_|nd_)?syscall\.(read|open|openat|sendfile|recvfrom|bdflush)(\.return)?$/.test(n);
      for (const d of sample(listed, 17, (d) => key(aliasName(d)))) {
        expect(expandsToNothing(sp, d), `${aliasName(d)} is listed but derives a probe or a message`).to.not.equal(null);
      }
      for (const d of sample(unlisted, 11, (d) => key(aliasName(d)))) {
        expect(expandsToNothing(sp, d), `${aliasName(d)} resolves to nothing but is not listed`).to.equal(null);
      }
    });
  }

  it('the slow-path check refuses an alias that resolves (a wrong table would fail above)', () => {
    const { unlisted } = split('nd_syscalls.stp');
    const nd2 = unlisted.find((d) => aliasName(d) === 'nd2_syscall.read')!;
    expect(expandsToNothing(sp, nd2)).to.equal(null);
  });

  describe('when the table does not describe the run', () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-alias-table-'));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    const write = (t: AliasTableData): string => {
      const f = path.join(dir, `t${Math.random().toString(36).slice(2)}.json`);
      fs.writeFileSync(f, JSON.stringify(t));
      return f;
    };

    it('another parser build, other kernel data, a damaged file: not used', () => {
      expect(AliasTable.load(lib.key, stdlibDir(), write(data))).to.not.equal(null);
      expect(AliasTable.load('0'.repeat(32), stdlibDir(), write(data))).to.equal(null);
      const kernel = { ...kernelDataStamps(), 'kallsyms.gz': '1:1' };
      expect(AliasTable.load(lib.key, stdlibDir(), write({ ...data, kernel }))!.holds((r) => lib.filesDefiningAliasRoot(r), [])).to.equal(false);
      expect(AliasTable.load(lib.key, stdlibDir(), write({ ...data, version: 'old' }))).to.equal(null);
      expect(AliasTable.load(lib.key, stdlibDir(), path.join(dir, 'none.json'))).to.equal(null);
      fs.writeFileSync(path.join(dir, 'bad.json'), '{"version":');
      expect(AliasTable.load(lib.key, stdlibDir(), path.join(dir, 'bad.json'))).to.equal(null);
    });

    it('an edited tapset file (another stamp), a file outside stdlib: not known', () => {
      const f = path.join(stdlibDir(), 'syscalls.stp');
      expect(table.failures(f, lib.fileStamp(f))).to.not.equal(null);
      expect(table.failures(f, '1:1')).to.equal(null);
      expect(table.failures(path.join(dir, 'syscalls.stp'), lib.fileStamp(f))).to.equal(null);
    });

    it('an alias of the script or a -I directory under a root the table tried: does not hold', () => {
      const definers = (r: string): string[] => lib.filesDefiningAliasRoot(r);
      expect(table.holds(definers, ['mine'])).to.equal(true);
      expect(table.holds(definers, ['kprobe'])).to.equal(false);
      expect(table.holds(definers, ['__sys*'])).to.equal(false);
      expect(table.holds((r) => [...definers(r), path.join(dir, 'extra.stp')], [])).to.equal(false);
    });
  });

  describe('pass 2 prints the same with and without the table', () => {
    let cache: string;
    before(() => {
      cache = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-alias-cache-'));
    });
    after(() => fs.rmSync(cache, { recursive: true, force: true }));

    const run = (args: string[]): string => {
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 120000, env: { ...process.env, TAPSIM_CACHE_DIR: cache } });
      const out = `${r.stdout}\n--stderr--\n${r.stderr}\nstatus ${r.status}`;
      return out.replace(/using \d+virt\/\d+res\/\d+shr\/\d+data kb, in \d+usr\/\d+sys\/\d+real ms/g, 'using M, in T');
    };
    // (an unused alias under `kprobe`, one of the table's roots, after the probe: the slow path)
    const slow = (script: string): string => `${script}\nprobe kprobe.tapsim_unused = never {}\n`;

    const cases: [string, string][] = [
      ['-p2', 'probe syscall.* {}'],
      ['-p2 -v', 'probe syscall.* {}'],
      ['-p2', 'probe syscall.*.return { println(retstr) }'],
      ['-p2', 'probe dw_syscall.read {} probe nd_syscall.open, tp_syscall.read, syscall.sendfile, dw_syscall.* ? { println(name) }'],
      // (the build's records of what aliases derive, replayed: alias_expansions.ts)
      ['-p2 -v', 'probe nd_syscall.*, vfs.* {}'],
      ['-p3', 'probe syscall.open, syscall.openat? { printf("%s %s\\n", name, argstr) } probe nfs.fop.*, generic.fop.* ? { println(pn()) }'],
      ['-p2', 'global name probe syscall.read, syscall.write.return { name = retstr . argstr }'],
      ['-p2 -vv', 'probe syscall.* { println(name) } probe nfsd.*, sunrpc.*? { println(pp()) }'],
      // (probes the build found elided, their bodies unmade: alias_expansions.ts; and where they may not be)
      ['-p2 -vv', 'probe syscall.*, nd_syscall.*.return {} probe syscall.read { println(fd) }'],
      ['-p3', 'probe syscall.* {} probe begin { exit() }'],
      ['-p2 -v -u', 'probe syscall.* {}'],
      ['-p2 -W', 'probe syscall.* {}'],
      ['-p2 --skip-badvars', 'probe syscall.* {}'],
      ['-p2 -v', 'global fd, argstr probe syscall.* {} probe end { println(fd, argstr) }'],
      ['-p2 -v', 'function __sc_argu32:long(n:long) { return n + 1 } probe syscall.* {} probe begin { println(__sc_argu32(1)) }'],
      ['-p2 -v', 'probe syscall.open, syscall.read?, nd_syscall.write {} probe never { foo = 1; println(foo) }'],
    ];
    for (const [opts, script] of cases) {
      it(`stap ${opts} -e '${script}'`, () => {
        const args = opts.split(' ');
        const fast = run([...args, '-e', script]);
        expect(fast).to.not.match(/Error|TypeError/);
        expect(fast.length).to.be.greaterThan(200);
        expect(fast).to.equal(run([...args, '-e', slow(script)]));
      });
    }
    it('stap -l / -L (a -I directory with an alias under `kprobe`: the slow path)', () => {
      const inc = path.join(cache, 'inc');
      fs.mkdirSync(inc, { recursive: true });
      fs.writeFileSync(path.join(inc, 'unused.stp'), 'probe kprobe.tapsim_unused = never {}\n');
      for (const args of [['-l', 'syscall.*'], ['-L', 'syscall.open']]) {
        const fast = run(args);
        expect(fast.split('\n').length).to.be.greaterThan(4);
        expect(fast).to.equal(run(['-I', inc, ...args]));
      }
    });
  });
});
