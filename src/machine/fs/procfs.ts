/** /proc and /proc/sys/vm: generated from the machine's live state. */
import type { Fs, FsMachine } from './namei';
import { Inode, LazyDir, lazyEntries, S_IFDIR, S_IFREG } from '../include/fs';
import { KERNEL_PROC_VERSION, KERNEL_RELEASE } from '../../kernel/config';
import { procModulesText, procKallsymsText, sysModuleNames } from '../../kernel/kallsyms';
import { procRoot, procPidFile } from './proc_pid';
import { procMountsText, procMountinfoText } from './proc_namespace';
import { cpuinfoText, sysCpuFiles, sysCpuShape } from '../kernel/cpu';
import { loDev } from '../net/core';
import { invalidateMappingPages, mappedFilePages } from '../mm/filemap';
import type { Mm } from '../include/mm_types';

export function populateProc(m: FsMachine, fs: Fs): void {
  const proc = fs.lookup('/proc')!;
  proc.dyn = procRoot(m, fs, proc);
  fs.mkdirp('/proc/sys/vm', 'proc');
  fs.mkdirp('/proc/sys/kernel', 'proc');
  const up = () => (m.now / 1e9);
  fs.procFile('/proc/meminfo', () => m.mm.meminfo());
  fs.procFile('/proc/uptime', () => {
    const idle = m.cpus.reduce((a, c) => a + c.idleNs, 0) / 1e9;
    return `${up().toFixed(2)} ${idle.toFixed(2)}\n`;
  });
  fs.procFile('/proc/version', () => `${KERNEL_PROC_VERSION}\n`);
  fs.procFile('/proc/loadavg', () => {
    const r = m.cpus.reduce((a, c) => a + m.sched.nrRunning(c), 0);
    return `${(r * 0.6).toFixed(2)} ${(r * 0.4).toFixed(2)} ${(r * 0.3).toFixed(2)} ${r}/${m.procs.tasks.size} ${m.procs.nextPid - 1}\n`;
  });
  fs.procFile('/proc/cpuinfo', () => cpuinfoText(m.ncpus));
  fs.procFile('/proc/swaps', () => 'Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n' +
    m.mm.swaps.map((s) => `${s.path.padEnd(40)}${(s.path.startsWith('/dev') ? 'partition' : 'file').padEnd(16)}${String(s.slots * 4).padEnd(16)}${String(s.used * 4).padEnd(16)}${s.prio}\n`).join(''));
  // the mount table (proc_namespace.ts); /proc/mounts is self/mounts, each process's mountinfo and mounts the same namespace's
  fs.procFile('/proc/mounts', () => procMountsText(fs));
  procPidFile('mounts', () => procMountsText(fs));
  procPidFile('mountinfo', () => procMountinfoText(fs));
  fs.procFile('/proc/stat', () => {
    const line = (n: string, busy: number, idle: number) => `${n} ${Math.round(busy / 1e7)} 0 0 ${Math.round(idle / 1e7)} 0 0 0 0 0 0\n`;
    let s = line('cpu ', m.cpus.reduce((a, c) => a + c.busyNs, 0), m.cpus.reduce((a, c) => a + c.idleNs, 0));
    for (const c of m.cpus) s += line(`cpu${c.id}`, c.busyNs, c.idleNs);
    s += `ctxt ${m.cpus.reduce((a, c) => a + c.switches, 0)}\nprocesses ${m.procs.nextPid}\nprocs_running ${m.cpus.reduce((a, c) => a + m.sched.nrRunning(c), 0)}\n`;
    return s;
  });
  fs.procFile('/proc/vmstat', () => `nr_free_pages ${m.mm.freePages}\nnr_anon_pages ${m.mm.anonPages}\nnr_file_pages ${m.mm.filePages}\npgfault ${m.mm.pgfault}\npgmajfault ${m.mm.pgmajfault}\npswpin ${m.mm.pswpin}\npswpout ${m.mm.pswpout}\npgsteal_kswapd ${m.mm.pgsteal}\n`);
  for (const k of Object.keys(m.mm.sysctl)) {
    fs.procFile(`/proc/sys/vm/${k}`, () => `${m.mm.sysctl[k]}\n`, (s) => {
      const v = parseInt(s.trim(), 10);
      if (Number.isNaN(v)) return -22;
      m.mm.sysctl[k] = v;
      if (k === 'drop_caches' && v & 1) dropCaches(m, fs);
      return s.length;
    }, 0o644);
  }
  fs.procFile('/proc/sys/kernel/hostname', () => `${m.hostname}\n`);
  fs.procFile('/proc/sys/kernel/osrelease', () => `${KERNEL_RELEASE}\n`);
  fs.procFile('/proc/sys/kernel/pid_max', () => '4194304\n');
}

/**
 * The kernel's own lists, created after the rest of the tree (inode numbers of the files above
 * unchanged): /proc/modules and /proc/kallsyms (the real guest's modules and symbols,
 * data/kernel/), /proc/partitions (show_partition(): "%4d  %7d %10llu %pg" of the machine's
 * disk), /sys/module/<name> for every module the guest's /sys/module has.
 */
export function populateKernelLists(fs: Fs, now: number): void {
  fs.procFile('/proc/modules', procModulesText);
  fs.procFile('/proc/kallsyms', procKallsymsText);
  fs.procFile('/proc/partitions', () => {
    let s = 'major minor  #blocks  name\n\n';
    for (const n of ['sda', 'sda1', 'sda2']) {
      const d = fs.lookup(`/dev/${n}`);
      if (!d) continue;
      s += `${String(d.rdev >> 8).padStart(4)}  ${String(d.rdev & 0xff).padStart(7)} ${String(Math.floor(d.size / 1024)).padStart(10)} ${n}\n`;
    }
    return s;
  });
  // /sys/module/NAME (one empty directory per module): numbered now in the order of the list, made when looked up
  const names = [...new Set(sysModuleNames())];
  if (!names.length) return;
  const dir = fs.mkdirp('/sys/module', 'sysfs');
  const nums = names.map(() => fs.takeIno());
  dir.nlink += names.length;
  dir.children = lazyEntries(names, (k) => {
    const ino = new Inode(nums[k], S_IFDIR | 0o755, 'sysfs', now);
    ino.parent = dir;
    return ino;
  });
}

/**
 * /sys/class/net (net/core/net-sysfs.c): a link per interface to /sys/devices/virtual/net/NAME with
 * its attributes, as the real guest shows lo once it is up (mtu=65536 ifindex=1 flags=0x9
 * addr=00:00:00:00:00:00 type=772, scripts/record/guest/examples-io.sh). Made after the root
 * filesystem's files, whose inode numbers it leaves as they were.
 */
export function populateSysClassNet(fs: Fs): void {
  const d = loDev;
  const dir = `/sys/devices/virtual/net/${d.name}`;
  fs.mkdirp(dir, 'sysfs');
  fs.mkdirp('/sys/class/net', 'sysfs');
  const attrs: [string, string][] = [
    ['mtu', String(d.mtu)], ['ifindex', String(d.ifindex)], ['iflink', String(d.ifindex)], ['type', String(d.type)],
    ['flags', `0x${d.flags.toString(16)}`], ['address', '00:00:00:00:00:00'], ['broadcast', '00:00:00:00:00:00'],
    ['addr_len', String(d.addr_len)], ['tx_queue_len', String(d.tx_queue_len)], ['operstate', 'unknown'], ['carrier', '1'],
  ];
  for (const [k, v] of attrs) fs.procFile(`${dir}/${k}`, () => `${v}\n`);
  // sysfs links have size 0 (ls -l shows 0)
  fs.symlink(`/sys/class/net/${d.name}`, `../../devices/virtual/net/${d.name}`).size = 0;
}

/**
 * echo 1 (or 3) > /proc/sys/vm/drop_caches (drop_pagecache_sb -> invalidate_mapping_pages): every clean
 * page cache page not under I/O is freed, but those a process maps (mapping_evict_folio keeps a folio
 * with references beyond the cache's: the libraries and programs of the running processes stay).
 */
function dropCaches(m: FsMachine, fs: Fs): void {
  const mms = new Set<Mm>();
  for (const t of m.procs.tasks.values()) if (t.proc.mm && !t.proc.exited) mms.add(t.proc.mm);
  const mapped = mappedFilePages(mms);
  const drop = (c: Inode) => {
    if (c.cachedPages) invalidateMappingPages(m.mm, c, mapped.get(c));
  };
  const walk = (d: Inode) => {
    if (!d.children) return;
    for (const c of d.children.values()) {
      if (c.isDir && c !== d) walk(c);
      else drop(c);
    }
  };
  walk(fs.root);
  for (const n of ['sda', 'sda1']) {
    const c = fs.lookup(`/dev/${n}`);
    if (c) drop(c);
  }
}

/**
 * /sys/devices/system/cpu (kernel/cpu.ts sysCpuFiles: the recorded guest's files), created after
 * the rest of the tree so that every other inode keeps its number. cpuidle/current_governor takes
 * the name of an available governor, as cpuidle's sysfs store does.  The directory and its parents
 * are made now; the ~120 entries under it take their inode numbers now (as many as the tree has:
 * kernel/cpu.ts sysCpuShape), their texts and order are worked out when the directory is first
 * looked up, and each is made when first looked up (include/fs.ts LazyDir), at boot's time,
 * numbered in the order making them one by one would.
 */
export function populateSysCpu(fs: Fs, ncpus: number, now: number): void {
  const top = fs.mkdirp('/sys/devices/system/cpu', 'sysfs');
  // the numbers and links the tree will have (a start looks nothing up under it): made on first look-up
  const shape = sysCpuShape(ncpus);
  const first = fs.takeIno();
  for (let k = 1; k < shape.inodes; k++) fs.takeIno();
  top.nlink = 2 + shape.topDirs;
  let made: LazyDir | null = null;
  const tree = (): LazyDir => (made ??= sysCpuTree(top, ncpus, now, first, shape));
  top.children = new LazyDir([], { one: (name) => tree().get(name), all: () => [...tree()] });
}

/** The tree of populateSysCpu, its inodes numbered from `first` in the order of creation; each directory's entries made when first looked up. */
function sysCpuTree(top: Inode, ncpus: number, now: number, first: number, shape: { inodes: number; topDirs: number }): LazyDir {
  const files = sysCpuFiles(ncpus);
  const governors = (files.get('cpuidle/available_governors') ?? '').split(' ');
  let next = first;
  /** each directory's entries in the order they are made: [name, number, file text (null: a directory)] */
  const dirs = new Map<string, [string, number, string | null][]>([['', []]]);
  for (const [rel, text] of files) {
    const slash = rel.lastIndexOf('/');
    const at = slash < 0 ? '' : rel.slice(0, slash);
    // the directories mkdirp would make first, outermost first
    for (let k = rel.indexOf('/'); k >= 0 && k <= slash; k = rel.indexOf('/', k + 1)) {
      const d = rel.slice(0, k);
      if (dirs.has(d)) continue;
      const up = d.lastIndexOf('/');
      dirs.get(up < 0 ? '' : d.slice(0, up))!.push([d.slice(up + 1), next++, null]);
      dirs.set(d, []);
    }
    dirs.get(at)!.push([rel.slice(slash + 1), next++, text]);
  }
  /** a directory's links: `.`, its entry in its parent, `..` of each subdirectory */
  const links = (rel: string): number => 2 + dirs.get(rel)!.reduce((n, c) => n + (c[2] === null ? 1 : 0), 0);
  if (next - first !== shape.inodes || links('') !== 2 + shape.topDirs) {
    throw new Error(`/sys/devices/system/cpu: ${next - first} inodes and ${links('') - 2} directories at its top, the boot reserved ${shape.inodes} and ${shape.topDirs} (kernel/cpu.ts sysCpuShape)`);
  }
  const lazy = (dir: Inode, rel: string): LazyDir => {
    const entries = dirs.get(rel)!;
    return lazyEntries(entries.map((e) => e[0]), (k) => {
      const [name, num, text] = entries[k];
      let ino: Inode;
      const sub = rel ? `${rel}/${name}` : name;
      if (text === null) {
        ino = new Inode(num, S_IFDIR | 0o755, 'sysfs', now);
        ino.nlink = links(sub);
        ino.children = lazy(ino, sub);
      } else if (sub === 'cpuidle/current_governor') {
        ino = new Inode(num, S_IFREG | 0o644, 'sysfs', now);
        let cur = text;
        ino.show = () => cur;
        ino.store = (s) => {
          const name = s.trim();
          if (!name || !governors.includes(name)) return -22;
          cur = `${name}\n`;
          return s.length;
        };
      } else {
        ino = new Inode(num, S_IFREG | 0o444, 'sysfs', now);
        ino.show = () => text;
      }
      ino.parent = dir;
      return ino;
    });
  };
  return lazy(top, '');
}

/**
 * The terminal the machine's processes run on (tty_nr 136:0 in /proc/<pid>/stat: devpts' /dev/pts/0,
 * group tty) and the tty drivers' list (fs/proc/proc_tty.c show_tty_driver) procps reads to name it.
 * Made last, so that the inode numbers of the tree before stay.
 */
export function populateTty(fs: Fs): void {
  fs.mkdirp('/dev/pts', 'devtmpfs');
  fs.devNode('/dev/pts/0', 'tty', false, 136, 0, 0o620).gid = 5;
  fs.mkdirp('/proc/tty', 'proc', 0o555);
  fs.procFile('/proc/tty/drivers', () => TTY_DRIVERS);
}
/** as a Debian 12 kernel lists them (this host's /proc/tty/drivers) */
const TTY_DRIVERS = `/dev/tty             /dev/tty        5       0 system:/dev/tty
/dev/console         /dev/console    5       1 system:console
/dev/ptmx            /dev/ptmx       5       2 system
/dev/vc/0            /dev/vc/0       4       0 system:vtmaster
serial               /dev/ttyS       4      64 serial
pty_slave            /dev/pts      136 0-1048575 pty:slave
pty_master           /dev/ptm      128 0-1048575 pty:master
unknown              /dev/tty        4 1-63 console
`;
