/**
 * The small tools the seed experiments (and the tracing tools' users) run that the userland did
 * not have yet: mount (tracefs, debugfs), mkswap, cut, sort, uniq, timeout (and awk, programs/awk.ts).
 * Listed in the issue-17 report; the userland proper grows elsewhere.
 */
import type { U, ProgramMain } from '../../process/user';
import type { Op, Prog, SysResult } from '../../include/sched';
import { bytesToString } from '../../process/user';
import { O_WRONLY } from '../../include/fs';
import { PAGE } from '../../include/fs';
import { awkMain as awk } from './awk';

type G<T> = Generator<Op, T, SysResult>;

/** What `mount` needs of the machine: its tree and the tracing filesystems' roots. */
interface MountMachine {
  readonly fs: import('../../fs/namei').Fs;
  readonly tracefs: { root(): import('../../../kernel/tracefs/vfs').PseudoNode; debugfs(): import('../../../kernel/tracefs/vfs').PseudoNode };
}

function* input(u: U, files: string[], prog: string): G<string | null> {
  let s = '';
  for (const f of files.length ? files : ['-']) {
    const fd = f === '-' ? 0 : yield* u.open(f);
    if (fd < 0) { yield* u.err(`${prog}: ${f}: No such file or directory\n`); return null; }
    s += bytesToString(yield* u.readAll(fd));
    if (f !== '-') yield* u.close(fd);
  }
  return s;
}
const lines = (s: string) => { const l = s.split('\n'); if (l[l.length - 1] === '') l.pop(); return l; };

/** mount [-t TYPE] SOURCE DIR (tracefs, debugfs), or the mount table. */
const mount: ProgramMain = function* (u, argv) {
  const a = argv.slice(1);
  let type = '';
  const rest: string[] = [];
  for (let i = 0; i < a.length; i++) { if (a[i] === '-t') type = a[++i] ?? ''; else if (a[i] === '-o') i++; else rest.push(a[i]); }
  if (!rest.length) {
    const fd = yield* u.open('/proc/mounts');
    const t = bytesToString(yield* u.readAll(fd));
    yield* u.close(fd);
    yield* u.out(t.split('\n').filter(Boolean).map((l) => { const [src, at, fs, opts] = l.split(' '); return `${src} on ${at} type ${fs} (${opts})\n`; }).join(''));
    return 0;
  }
  const dir = rest[rest.length - 1];
  // mount(2) as a direct call into the machine (the userland has no mount syscall path yet)
  const m = u.m as unknown as MountMachine;
  const ino = m.fs.lookup(dir, u.t.proc.cwd);
  if (!ino || !ino.isDir) { yield* u.err(`mount: ${dir}: mount point does not exist.\n`); return 32; }
  if (type === 'tracefs') m.fs.mountPseudo(ino, m.tracefs.root(), 'tracefs');
  else if (type === 'debugfs') m.fs.mountPseudo(ino, m.tracefs.debugfs(), 'debugfs');
  else { yield* u.err(`mount: ${dir}: unknown filesystem type '${type}'.\n`); return 32; }
  return 0;
};

/** mkswap FILE: a swap signature on the file (version 1, 4 KiB pages) */
const mkswap: ProgramMain = function* (u, argv) {
  const f = argv.filter((x, i) => i > 0 && !x.startsWith('-')).pop();
  if (!f) { yield* u.err('mkswap: no device specified\n'); return 1; }
  const st = yield* u.stat(f);
  if (typeof st === 'number') { yield* u.err(`mkswap: cannot open ${f}: No such file or directory\n`); return 1; }
  const pages = Math.floor(st.size / PAGE);
  if (pages < 10) { yield* u.err(`mkswap: error: swap area needs to be at least 40 KiB\n`); return 1; }
  const fd = yield* u.open(f, O_WRONLY);
  const sig = new Uint8Array(PAGE);
  sig.set(Buffer.from('SWAPSPACE2'), PAGE - 10);
  const dv = new DataView(sig.buffer);
  dv.setUint32(1024, 1, true);
  dv.setUint32(1028, pages - 1, true);
  yield* u.pwrite(fd, sig, 0);
  yield* u.close(fd);
  yield* u.out(`Setting up swapspace version 1, size = ${(pages - 1) * 4} KiB (${(pages - 1) * PAGE} bytes)\nno label, UUID=3e4f5a6b-7c8d-4e9f-a0b1-c2d3e4f5a6b7\n`);
  return 0;
};

const cut: ProgramMain = function* (u, argv) {
  let delim = '\t', fields = '', i = 1;
  const files: string[] = [];
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-d') delim = argv[++i] ?? '\t';
    else if (a.startsWith('-d')) delim = a.slice(2);
    else if (a === '-f') fields = argv[++i] ?? '';
    else if (a.startsWith('-f')) fields = a.slice(2);
    else files.push(a);
  }
  if (!fields) { yield* u.err('cut: you must specify a list of bytes, characters, or fields\n'); return 1; }
  const want = (n: number) => fields.split(',').some((r) => { const [a, b] = r.split('-'); const lo = a ? Number(a) : 1; const hi = r.includes('-') ? (b ? Number(b) : Infinity) : lo; return n >= lo && n <= hi; });
  const s = yield* input(u, files, 'cut');
  if (s === null) return 1;
  yield* u.out(lines(s).map((l) => (l.includes(delim) ? l.split(delim).filter((_, k) => want(k + 1)).join(delim) : l) + '\n').join(''));
  return 0;
};

const sort: ProgramMain = function* (u, argv) {
  const flags = argv.slice(1).filter((a) => a.startsWith('-')).join('');
  const s = yield* input(u, argv.slice(1).filter((a) => !a.startsWith('-')), 'sort');
  if (s === null) return 2;
  let l = lines(s);
  if (flags.includes('n')) l.sort((a, b) => (parseFloat(a) || 0) - (parseFloat(b) || 0) || (a < b ? -1 : a > b ? 1 : 0));
  else l.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (flags.includes('r')) l.reverse();
  if (flags.includes('u')) l = l.filter((x, i) => i === 0 || x !== l[i - 1]);
  yield* u.out(l.map((x) => x + '\n').join(''));
  return 0;
};

const uniq: ProgramMain = function* (u, argv) {
  const count = argv.includes('-c');
  const s = yield* input(u, argv.slice(1).filter((a) => !a.startsWith('-')), 'uniq');
  if (s === null) return 1;
  let out = '';
  const l = lines(s);
  for (let i = 0; i < l.length;) {
    let j = i;
    while (j < l.length && l[j] === l[i]) j++;
    out += count ? `${String(j - i).padStart(7)} ${l[i]}\n` : `${l[i]}\n`;
    i = j;
  }
  yield* u.out(out);
  return 0;
};

/** timeout DURATION COMMAND...: TERM after DURATION, status 124 when it fired */
const timeout: ProgramMain = function* (u, argv) {
  const secs = parseFloat(argv[1] ?? '');
  if (!(secs >= 0) || argv.length < 3) { yield* u.err("timeout: missing operand\n"); return 125; }
  const cmd = argv.slice(2);
  const pid = yield* u.fork(function* (cu: U): Prog {
    const r = yield* cu.exec(cmd[0].includes('/') ? cmd[0] : `/usr/bin/${cmd[0]}`, cmd);
    yield* cu.err(`timeout: failed to run command '${cmd[0]}': No such file or directory\n`);
    return r === -2 ? 127 : 126;
  });
  let fired = false;
  const timer = yield* u.fork(function* (cu: U): Prog {
    yield* cu.nanosleep(secs * 1e9);
    yield* cu.kill(pid, 15);
    return 0;
  });
  const [, st] = yield* u.wait(pid);
  const [r] = yield* u.wait(timer, true);
  if (r !== timer) { yield* u.kill(timer, 9); yield* u.wait(timer); } else fired = true;
  return fired && st & 0x7f ? 124 : st & 0x7f ? 128 + (st & 0x7f) : (st >> 8) & 0xff;
};

export const seedTools: Record<string, ProgramMain> = { mount, mkswap, cut, sort, uniq, awk, timeout };
