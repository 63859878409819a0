/**
 * What the recorded guest's page cache held when the workloads ran (issue 14): the regular files on the
 * ext4 root that the catalogue's programs read or mapped, derived from the recordings
 * (scripts/record/FORMAT.md), written to data/paths/pagecache.json. The machine marks their pages
 * cached at boot (src/machine/mm/filemap.ts warmPageCache), so a read or a fault on them takes the
 * cache-hit variants, as on the recorded guest; every other file (never touched, created by a
 * workload or its setup) still starts cold.
 *
 *   node dist/scripts/paths/pagecache.js [--recordings DIR] [--out FILE]      (npm run paths does both)
 *
 * A file is in the set when, in a workload the recorder warmed (not flagged `cold` or `background`: the
 * recorder runs the command once untraced before each traced run, recorder.sh run_setup) whose events
 * run shows no read block I/O (no `block_rq_issue` with an R rwbs by the workload's tasks):
 *   - strace shows it opened read-only with success (`openat(..., "PATH", FLAGS) = FD`, no O_WRONLY,
 *     O_RDWR, O_CREAT, O_TRUNC), or exec'd (`execve("PATH", ...) = 0`), or
 *   - the process maps (`maps`, read just before exit_group) show it mapped from 08:01 (/dev/sda1).
 * Left out: files any workload opens for writing or creates, and anything outside the ext4 root's
 * system directories (/proc, /sys, /dev, /run, /tmp: not page cache of the disk; /root: the workloads'
 * and setups' own files). Deterministic: sorted output.
 */
import * as fs from 'fs';
import * as path from 'path';
import { loadIndex, loadRecording, RECORDINGS_DIR, Recording } from '../record/recording';

const O_ACCMODE = 3, O_CREAT = 0o100, O_TRUNC = 0o1000, O_DIRECTORY = 0o200000;
const NOT_DISK = /^\/(proc|sys|dev|run|tmp|root)(\/|$)/;

/** Read block requests (block_rq_issue whose rwbs has an R) issued by the workload's tasks. */
function readBlockIo(r: Recording): number {
  let n = 0;
  const ev = r.eventRecords;
  for (let i = 0; i + 5 < ev.length; i += 6) {
    const name = typeof ev[i + 3] === 'number' ? r.events[ev[i + 3] as number] : String(ev[i + 3]);
    if (name !== 'block_rq_issue') continue;
    const rwbs = String(ev[i + 5]).split(' ')[1] ?? '';
    if (rwbs.includes('R')) n++;
  }
  return n;
}

const unquote = (s: string): string | null => {
  const m = /^"((?:[^"\\]|\\.)*)"/.exec(s.trim());
  return m ? m[1].replace(/\\(.)/g, '$1') : null;
};

export interface PageCacheSet { files: string[]; workloads: string[]; skipped: { name: string; why: string }[] }

export function pageCacheSet(dir = RECORDINGS_DIR): PageCacheSet {
  const read = new Set<string>();
  const written = new Set<string>();
  const workloads: string[] = [];
  const skipped: { name: string; why: string }[] = [];
  for (const e of loadIndex(dir).recordings) {
    const r = loadRecording(e, dir);
    // every workload's writes count (a file some workload writes is not a boot-time cached file)
    for (const s of r.strace) {
      if (s[2] !== 'openat' && s[2] !== 'open' && s[2] !== 'creat') continue;
      const a = s[3];
      const parts = a.split(', ');
      const p = unquote(s[2] === 'openat' ? parts.slice(1).join(', ') : a);
      const flags = Number(s[2] === 'creat' ? O_CREAT : (/", (0x[0-9a-f]+|\d+)/.exec(a)?.[1] ?? 0));
      if (p && ((flags & O_ACCMODE) !== 0 || (flags & (O_CREAT | O_TRUNC)) !== 0)) written.add(p);
    }
    if (r.flags.includes('cold') || r.flags.includes('background')) { skipped.push({ name: r.name, why: r.flags.join(',') }); continue; }
    const bio = readBlockIo(r);
    if (bio > 0) { skipped.push({ name: r.name, why: `${bio} read block requests` }); continue; }
    workloads.push(r.name);
    for (const s of r.strace) {
      const ok = /^\d+$/.test(s[4]);
      if (!ok) continue;
      if (s[2] === 'execve') { const p = unquote(s[3]); if (p) read.add(p); continue; }
      if (s[2] !== 'openat') continue;
      const parts = s[3].split(', ');
      const p = unquote(parts.slice(1).join(', '));
      const flags = Number(/", (0x[0-9a-f]+|\d+)/.exec(s[3])?.[1] ?? 0);
      if (p && (flags & (O_ACCMODE | O_CREAT | O_TRUNC | O_DIRECTORY)) === 0) read.add(p.startsWith('/') ? p : path.posix.join('/root', p));
    }
    for (const mp of r.maps) {
      for (const line of mp.maps.split('\n')) {
        const f = line.trim().split(/\s+/);
        if (f.length >= 6 && f[3] === '08:01' && f[5].startsWith('/')) read.add(f[5]);
      }
    }
  }
  const files = [...read].filter((p) => !written.has(p) && !NOT_DISK.test(p)).sort();
  return { files, workloads: workloads.sort(), skipped };
}

if (require.main === module) {
  const arg = (k: string): string | undefined => { const i = process.argv.indexOf(k); return i > 0 ? process.argv[i + 1] : undefined; };
  const dir = arg('--recordings') ?? RECORDINGS_DIR;
  const out = arg('--out') ?? path.join(__dirname, '..', '..', '..', 'data', 'paths', 'pagecache.json');
  const s = pageCacheSet(dir);
  fs.writeFileSync(out, JSON.stringify({
    comment: 'generated by scripts/paths/pagecache.ts from data/recordings/: files cached on the recorded guest when the workloads ran',
    workloads: s.workloads, skipped: s.skipped, files: s.files,
  }, null, 1) + '\n');
  console.log(`${out}: ${s.files.length} files from ${s.workloads.length} workloads (${s.skipped.length} skipped)`);
}
