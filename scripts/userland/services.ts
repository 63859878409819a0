/**
 * `node dist/scripts/userland/services.js`: data/userland/services.json and services_vmas.json, the
 * boot services' counters and address spaces as the real Debian 12 guest had them when the
 * recorder's system snapshot was taken (data/recordings/procs.json.gz: /proc/PID/maps, smaps and
 * stat, scripts/record/FORMAT.md). Per service, in pid order: its comm, task flags (PF_*), the page
 * faults and CPU time /proc/PID/stat counted (minflt, majflt, utime, stime in clock ticks), its Rss
 * and own memory in kB; and (services_vmas.json) each VMA as smaps lists it, `start end perms offset
 * dev inode path rss anon` (addresses and offset in hex; path, [heap]/[stack]/[vvar]/[vdso] or '-';
 * Rss and Anonymous in kB). The recorder's own processes and the kernel threads are left out, but for
 * its first dash (comm sh), whose address space the console's shell takes (userland/service_mm.ts).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';

/** ownKb: the anonymous mappings' Rss and the file mappings' Anonymous (the memory boot takes for it) */
export interface ServiceData { comm: string; flags: number; minflt: number; majflt: number; utime: number; stime: number; rssKb: number; ownKb: number }
export interface ServicesFile { from: string; services: ServiceData[]; vmas: string[][] }

const RECORDER = new Set(['recorder-run', 'sh', 'strace', 'sleep', 'ps']);
const VMA = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$/;

/** smaps: each VMA's head line and its Rss and Anonymous (kB) */
export function smapsVmas(text: string): string[] {
  const out: string[] = [];
  let head: RegExpExecArray | null = null, rss = 0, anon = 0;
  const flush = (): void => {
    if (head) out.push(`${head[1]} ${head[2]} ${head[3]} ${head[4]} ${head[5]} ${head[6]} ${head[7].trim() || '-'} ${rss} ${anon}`);
  };
  for (const l of text.split('\n')) {
    const h = VMA.exec(l);
    if (h) { flush(); head = h; rss = 0; anon = 0; continue; }
    const f = /^(Rss|Anonymous):\s+(\d+) kB/.exec(l);
    if (f) { if (f[1] === 'Rss') rss = Number(f[2]); else anon = Number(f[2]); }
  }
  flush();
  return out;
}

export function servicesData(procsFile: string): ServicesFile {
  const { procs } = JSON.parse(zlib.gunzipSync(fs.readFileSync(procsFile)).toString('utf8')) as { procs: Record<string, Record<string, string>> };
  const services: ServiceData[] = [];
  const vmas: string[][] = [];
  for (const pid of Object.keys(procs).map(Number).sort((a, b) => a - b)) {
    const p = procs[pid];
    if (!p.stat || !p.smaps) continue;
    const close = p.stat.lastIndexOf(')');
    const comm = p.stat.slice(p.stat.indexOf('(') + 1, close);
    // f[0] is field 3 (state): field N is f[N - 3]
    const f = p.stat.slice(close + 2).trim().split(' ');
    // (the recorder's dash, running its script: the address space of a shell the console starts with)
    const shell = comm === 'sh' && /\/usr\/bin\/dash/.test(p.smaps) && !services.some((x) => x.comm === 'sh');
    if (pid === 2 || Number(f[1]) === 2 || (RECORDER.has(comm) && !shell)) continue;
    const v = smapsVmas(p.smaps);
    let rssKb = 0, ownKb = 0;
    for (const l of v) {
      const x = l.split(' ');
      const rss = Number(x[x.length - 2]), anon = Number(x[x.length - 1]);
      rssKb += rss;
      ownKb += x[6].startsWith('/') ? anon : rss;
    }
    services.push({ comm, flags: Number(f[6]), minflt: Number(f[7]), majflt: Number(f[9]), utime: Number(f[11]), stime: Number(f[12]), rssKb, ownKb });
    vmas.push(v);
  }
  return { from: 'data/recordings/procs.json.gz (the system snapshot: /proc/PID/smaps and stat)', services, vmas };
}

if (require.main === module) {
  const data = path.join(__dirname, '..', '..', '..', 'data');
  const d = servicesData(path.join(data, 'recordings', 'procs.json.gz'));
  // (two files: boot reads the counters; the VMAs are read when a service's address space is first looked at)
  const out = path.join(data, 'userland', 'services.json');
  const rows = d.services.map((s) => `    ${JSON.stringify(s)}`).join(',\n');
  fs.writeFileSync(out, `{\n  "from": ${JSON.stringify(d.from)},\n  "services": [\n${rows}\n  ]\n}\n`);
  const vout = path.join(data, 'userland', 'services_vmas.json');
  fs.writeFileSync(vout, `{\n  "from": ${JSON.stringify(d.from)},\n  "vmas": [\n${d.vmas.map((v) => `    ${JSON.stringify(v)}`).join(',\n')}\n  ]\n}\n`);
  console.log(`${out}, ${vout}: ${d.services.length} services, ${d.vmas.reduce((a, v) => a + v.length, 0)} VMAs`);
}
