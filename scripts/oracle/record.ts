/**
 * Record oracle tables: run every case of the named tables (default: all) through real
 * SystemTap 4.8 and write test/oracle/<table>.json.  Needs /work/shared/tools/real-stap (or
 * ORACLE_STAP=path); runs only when a developer runs it:
 *
 *   npm run build && node dist/scripts/oracle/record.js [TABLE...] [--jobs N]
 *
 * The oracle gets a build tree of its own with a System.map, so stap does not warn about a
 * missing kernel symbol table (which would make every -W case fail).
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { RecordedCase, RecordedTable, OracleCase, normalizeOracle } from './cases';
import { TABLES } from './tables';

const ROOT = path.join(__dirname, '..', '..', '..');
const ORACLE = process.env.ORACLE_STAP ?? '/work/shared/tools/real-stap';

/**
 * Answers that come from the oracle having no kernel (no debuginfo, a fake .config and
 * release): tapsim's simulated kernel has what these lack, so such cases are not recorded.
 */
const ORACLE_ENVIRONMENT = new RegExp([
  'debuginfo', 'not available on this kernel', 'not available without kernel', '6\\.1\\.0-fake', 'kernel build tree',
  'System\\.map', 'symbol table missing', 'kbuild exited', 'typequery', 'type definition .* not found',
  // kernel symbols, tracepoints and perf events the fake build tree lacks
  "identifier '(kprobe|kernel)' at", 'tracepoint', 'no match',
  // perf probes need the kernel to export perf_event_create_kernel_counter (Debian's does)
  'perf probes not available',
].join('|'));

function oracleTree(): string {
  const dir = path.join(os.tmpdir(), `tapsim-oracle-tree-${process.getuid?.() ?? 0}`);
  fs.mkdirSync(path.join(dir, 'include', 'generated'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'include', 'config'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Makefile'), 'VERSION = 6\nPATCHLEVEL = 1\n');
  fs.writeFileSync(path.join(dir, 'Module.symvers'), '');
  fs.writeFileSync(path.join(dir, '.config'),
    'CONFIG_X86_64=y\nCONFIG_64BIT=y\nCONFIG_HZ=250\nCONFIG_MODULES=y\nCONFIG_KPROBES=y\nCONFIG_DEBUG_INFO=y\n' +
    // as Debian's 6.1 config (data/kernel/config.txt): perf events and hardware breakpoints (kernel.data);
    // tracepoints and uprobes (stap's process.* task-finder points need them)
    'CONFIG_PERF_EVENTS=y\nCONFIG_HAVE_HW_BREAKPOINT=y\nCONFIG_TRACEPOINTS=y\nCONFIG_ARCH_SUPPORTS_UPROBES=y\nCONFIG_UPROBES=y\n');
  fs.writeFileSync(path.join(dir, 'include', 'generated', 'utsrelease.h'), '#define UTS_RELEASE "6.1.0-fake"\n');
  fs.writeFileSync(path.join(dir, 'include', 'config', 'kernel.release'), '6.1.0-fake\n');
  fs.writeFileSync(path.join(dir, 'System.map'),
    'ffffffff81000000 T _stext\nffffffff81000000 T _text\nffffffff82000000 T _etext\n');
  return dir;
}

function runOracle(c: OracleCase, tree: string, cwd: string): Promise<RecordedCase> {
  return new Promise((resolve) => {
    const p = spawn(ORACLE, c.args, { cwd, env: { ...process.env, REAL_STAP_TREE: tree, LC_ALL: 'C' } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (b: Buffer) => out.push(b));
    p.stderr.on('data', (b: Buffer) => err.push(b));
    p.on('close', (code) => {
      resolve({
        ...c,
        exit: code ?? 128,
        out: Buffer.concat(out).toString('latin1'),
        err: normalizeOracle(Buffer.concat(err).toString('latin1')),
      });
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  let jobs = Math.max(1, os.cpus().length);
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--jobs') jobs = Number(argv[++i]);
    else names.push(argv[i]);
  }
  const tables = names.length ? TABLES.filter((t) => names.includes(t.name)) : TABLES;
  const tree = oracleTree();
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'tapsim-oracle-'));
  for (const t of tables) {
    const cases = t.cases();
    const ids = new Set<string>();
    for (const c of cases) {
      if (ids.has(c.id)) throw new Error(`table ${t.name}: duplicate case id ${c.id}`);
      ids.add(c.id);
    }
    const results: RecordedCase[] = new Array(cases.length);
    let next = 0;
    let done = 0;
    const t0 = Date.now();
    const worker = async () => {
      for (;;) {
        const i = next++;
        if (i >= cases.length) return;
        results[i] = await runOracle(cases[i], tree, cwd);
        if (++done % 50 === 0) process.stderr.write(`${t.name}: ${done}/${cases.length}\n`);
      }
    };
    await Promise.all(Array.from({ length: jobs }, worker));
    // (an oracle that crashed, exit >= 128, has no answer to compare with)
    const env = t.environment ?? ORACLE_ENVIRONMENT;
    const kept = results.filter((r) => r.exit < 128 && !env.test(r.err + r.out));
    const rec: RecordedTable = {
      table: t.name,
      source: 'real SystemTap 4.8 (Debian 12 package), passes 1-2, recorded by scripts/oracle/record.ts',
      cases: kept,
    };
    const file = path.join(ROOT, 'test', 'oracle', `${t.name}.json`);
    // ASCII only (bytes >= 0x80 of stap's answers as \u00XX escapes): the same text read as utf8 or latin1
    fs.writeFileSync(file, JSON.stringify(rec, null, 1).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '\n');
    process.stderr.write(`${t.name}: ${kept.length} of ${cases.length} cases kept in ${Math.round((Date.now() - t0) / 1000)} s -> ${path.relative(ROOT, file)}\n`);
  }
  fs.rmSync(cwd, { recursive: true, force: true });
}

main().catch((e) => {
  process.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
  process.exit(1);
});
