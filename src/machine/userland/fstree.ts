/** The initial filesystem tree: /etc, /proc, /dev, /usr/bin, /home, /root, /tmp, /var/log. */
import type { Fs, FsMachine } from '../fs/namei';
import { NGINX_WELCOME } from './nginx_site';
import { S_IFREG, Inode } from '../include/fs';
import { KERNEL_RELEASE } from '../../kernel/config';
import { hash32 } from '../core/prng';
import { populateProc, populateKernelLists, populateSysClassNet, populateSysCpu, populateTty } from '../fs/procfs';
import { installLoaderFiles } from '../process/ldso';
import { installLibcFiles } from './libc_nss';
import { procPidFile } from '../fs/proc_pid';
import { markBootMounts } from '../fs/proc_namespace';
import { environOf } from '../process/environ';
import { machineNsOf } from './libc_time';
import { installEtcTree } from './etc_tree';
import { installRootTree, recordedScript } from './root_tree';
import { dbenchLoadfile, dbenchLoadfileSize } from './dbench_loadfile';

export const PROGRAM_NAMES = ['ls', 'cat', 'echo', 'true', 'false', 'sleep', 'touch', 'rm', 'mkdir', 'cp', 'mv', 'grep',
  'find', 'xxd', 'dd', 'tar', 'gzip', 'sync', 'swapon', 'swapoff', 'ps', 'kill', 'ping', 'make', 'sh', 'bash', 'tail', 'head', 'wc',
  'block_hasher', 'dbench', 'tbench', 'tbench_srv', 'pwd', 'uname', 'stat', 'systemd', 'systemd-journald', 'sshd', 'cron',
  'rsyslogd', 'nginx', 'postgres', 'cc'];
/**
 * Where Debian 12 installs a program the machine runs when it is not /usr/bin/NAME (NAME is then the
 * recorded tree's symlink, userland/root_tree.ts: /usr/bin/sh -> dash, /usr/bin/awk ->
 * /etc/alternatives/awk -> /usr/bin/mawk, /usr/sbin/init -> /lib/systemd/systemd); the guest's files.
 */
const PROGRAM_FILES: Record<string, string> = {
  sh: '/usr/bin/dash', awk: '/usr/bin/mawk', nc: '/usr/bin/nc.openbsd',
  systemd: '/usr/lib/systemd/systemd', 'systemd-journald': '/usr/lib/systemd/systemd-journald',
  sshd: '/usr/sbin/sshd', cron: '/usr/sbin/cron', rsyslogd: '/usr/sbin/rsyslogd', nginx: '/usr/sbin/nginx',
  swapon: '/usr/sbin/swapon', swapoff: '/usr/sbin/swapoff', mkswap: '/usr/sbin/mkswap',
  killall5: '/usr/sbin/killall5',
};
/** the file of program `name` (the machine's programs by name: PROGRAM_NAMES and the lists below) */
export function programPath(name: string): string {
  return PROGRAM_FILES[name] ?? `/usr/bin/${name}`;
}
/** the symlinks to the machine's programs (the recorded tree's, and the machine's own gcc link) */
const PROGRAM_LINKS: Record<string, string> = {
  '/usr/bin/sh': PROGRAM_FILES.sh, '/usr/bin/awk': PROGRAM_FILES.awk, '/usr/bin/nc': PROGRAM_FILES.nc,
  '/usr/bin/systemd': PROGRAM_FILES.systemd, '/usr/sbin/init': PROGRAM_FILES.systemd,
  '/usr/bin/rbash': '/usr/bin/bash', '/usr/bin/ping4': '/usr/bin/ping', '/usr/bin/cc': '/usr/bin/gcc',
};
/** The file a path (usrmerge links already followed) to one of the machine's programs resolves to (realpath()): any other path as it is */
export function programLink(p: string): string {
  return PROGRAM_LINKS[p] ?? p;
}
/** the coreutils/procps/util-linux commands added for issue 15 (programs/coreutils.ts, procps.ts, sed.ts), created after the rest */
export const MORE_TOOL_NAMES = ['sed', 'tr', 'chmod', 'ln', 'readlink', 'df', 'du', 'date', 'id', 'env', 'tee', 'xargs', 'seq', 'free',
  'uptime', 'dmesg'];
/** the seed experiments' tools (programs/seed_tools.ts), created last (inode numbers above unchanged) */
export const SEED_TOOL_NAMES = ['mount', 'mkswap', 'cut', 'sort', 'uniq', 'awk', 'timeout', 'trace-cmd', 'perf'];
/** the network tools (programs/nc.ts), created after everything else */
export const NET_TOOL_NAMES = ['nc'];
/** coreutils' mkfifo and mknod (programs/mknod.ts), created after everything else */
export const FIFO_TOOL_NAMES = ['mkfifo', 'mknod'];
/** programs the machine runs whose files are the recorded install's (userland/root_tree.ts): it makes none for them */
export const INSTALL_TOOL_NAMES = ['basename', 'dirname', 'nproc', 'rmdir', 'printenv', 'tac', 'yes', 'whoami', 'hostname', 'md5sum', 'sha1sum', 'sha256sum', 'nice', 'killall5'];
/** every program the machine runs, by name (its file: programPath) */
export function allProgramNames(): string[] {
  return [...PROGRAM_NAMES, ...SEED_TOOL_NAMES, ...MORE_TOOL_NAMES, ...NET_TOOL_NAMES, ...FIFO_TOOL_NAMES, ...INSTALL_TOOL_NAMES];
}

/**
 * Size and mtime (seconds since the epoch: the package's build time, which dpkg gives the files
 * it unpacks) of the Debian 12 files the tree installs: measured on this Debian 12 host (`stat -c
 * '%s %Y'` of the installed coreutils 9.1-1, grep, findutils, tar, gzip, procps, util-linux, dash,
 * bash, mawk, make, systemd, trace-cmd, linux-perf, systemtap, xxd, gcc-12 files) and from `dpkg-deb
 * -c` of bookworm's iputils-ping, dbench, cron, openssh-server, rsyslog and nginx packages.
 * Times after the install (security updates built later) are clamped to INSTALL_S.
 */
const DEBIAN_FILES: Record<string, [number, number]> = {
  ls: [151344, 1663687647], cat: [44016, 1663687647], echo: [43856, 1663687647], true: [35664, 1663687647],
  false: [35664, 1663687647], sleep: [43888, 1663687647], touch: [109616, 1663687647], rm: [72752, 1663687647],
  mkdir: [97552, 1663687647], cp: [151152, 1663687647], mv: [142968, 1663687647], grep: [203152, 1674571380],
  find: [224848, 1673201273], xxd: [18648, 1739683421], dd: [89240, 1663687647], tar: [531984, 1705742827],
  gzip: [98136, 1649557346], sync: [39824, 1663687647], swapon: [51512, 1732219314], swapoff: [22840, 1732219314],
  ps: [146360, 1671429998], kill: [22840, 1671429998], ping: [90568, 1727197200], make: [240280, 1618062915],
  bash: [1265648, 1745016454], tail: [76944, 1663687647], head: [48080, 1663687647], wc: [52280, 1663687647],
  dbench: [49176, 1670856180], tbench: [40856, 1670856180], tbench_srv: [19256, 1670856180], pwd: [43952, 1663687647],
  uname: [43888, 1663687647], stat: [97488, 1663687647], systemd: [92544, 1748538242], 'systemd-journald': [170496, 1748538242],
  sshd: [1265432, 1746440760], cron: [51776, 1677742380], rsyslogd: [749352, 1762853880], nginx: [1260456, 1762853880],
  postgres: [8945320, 1762853880], mount: [59704, 1732219314], mkswap: [117056, 1732219314], cut: [48112, 1663687647],
  sort: [118456, 1663687647], uniq: [48080, 1663687647], awk: [158376, 1655480126], timeout: [48632, 1663687647],
  'trace-cmd': [423824, 1674346922], perf: [9059728, 1762853880], stap: [3714120, 1677617106], gcc: [1301496, 1744025177],
  sed: [126424, 1672948525], tr: [56208, 1663687647], chmod: [64496, 1663687647], ln: [72824, 1663687647],
  df: [102200, 1663687647], du: [175440, 1663687647], date: [121904, 1663687647], id: [48144, 1663687647],
  env: [48536, 1663687647], tee: [43984, 1663687647], xargs: [72136, 1673201273], seq: [60336, 1663687647],
  free: [26936, 1671429998], uptime: [14648, 1671429998], dmesg: [88656, 1732219314],
  readlink: [52112, 1663687647], sh: [125640, 1672924848], mkfifo: [68784, 1663687647], mknod: [72912, 1663687647],
};
/** when the system was installed (debootstrap): 2025-11-12 09:30:00 UTC, nine days before the session */
export const INSTALL_S = 1762939800;
/** Debian's size of an installed program, when the table has it */
export function debianSize(name: string): number | undefined {
  return DEBIAN_FILES[name]?.[0];
}

/**
 * Install program `name` as /usr/bin/NAME after the tree was populated (stap, put in by the CLI):
 * Debian's size and time when the table has them.
 */
export function installProgramFile(m: FsMachine, fs: Fs, name: string): Inode {
  const deb = DEBIAN_FILES[name];
  const size = deb ? deb[0] : 40000 + (hash32(name.length * 7919 + name.charCodeAt(0)) % 200000);
  const ino = fs.createFile(`/usr/bin/${name}`, { size, gen: elfBytes(hash32(name.charCodeAt(0))) }, 0o755);
  ino.mtime = ino.atime = machineNsOf(m.bootNs, Math.min(deb ? deb[1] : INSTALL_S, INSTALL_S));
  return ino;
}

/**
 * e_ident, e_type, e_machine and e_version of an x86-64 ELF shared object (a PIE program or a library):
 * the first bytes of the guest's binaries, which a file of theirs begins with (the rest is filler)
 */
const ELF_HEAD = [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0, 1, 0, 0, 0];

/** An ELF file's bytes: ELF_HEAD, then synthBytes(seed) */
export function elfBytes(seed: number): (off: number, len: number) => Uint8Array {
  return (off, len) => {
    const b = synthBytes(seed, off, len);
    for (let i = off; i < ELF_HEAD.length && i < off + len; i++) b[i - off] = ELF_HEAD[i];
    return b;
  };
}

/** deterministic pseudo-random bytes for synthetic files/devices */
export function synthBytes(seed: number, off: number, len: number): Uint8Array {
  const b = new Uint8Array(len);
  let w = 0;
  for (let i = 0; i < len; i++) {
    const p = off + i;
    if (i === 0 || (p & 3) === 0) w = hash32((p >>> 2) ^ seed);
    b[i] = (w >>> ((p & 3) * 8)) & 0xff;
  }
  return b;
}

/** Fill an empty tree with a Debian install's files (and procfs, fs/procfs.ts, at its place in inode order). */
export function populate(m: FsMachine, fs: Fs): void {
  // Debian 12 is usrmerged: /bin and /sbin are symlinks into /usr (`ls -l /` of the real guest:
  // bin -> usr/bin, sbin -> usr/sbin, lib -> usr/lib, lib64 -> usr/lib64; the last two from ldso.ts)
  for (const d of ['/bin', '/sbin', '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib/systemd', '/etc/cron.d', '/etc/ssh', '/etc/systemd/system',
    '/home/user', '/root', '/var/log/journal', '/var/lib', '/var/www/html', '/opt', '/mnt', '/srv', '/boot', '/usr/src/app']) {
    if (d === '/bin' || d === '/sbin') fs.symlink(d, `usr${d}`);
    else fs.mkdirp(d);
  }
  fs.mkdirp('/tmp', 'tmpfs', 0o1777);
  fs.mkdirp('/proc', 'proc', 0o555);
  fs.mkdirp('/sys/kernel/debug', 'sysfs');
  fs.mkdirp('/sys/kernel/tracing', 'sysfs');
  fs.mkdirp('/dev', 'devtmpfs');
  fs.lookup('/home/user')!.uid = 1000;
  // programs (ELF-sized synthetic binaries)
  for (const p of PROGRAM_NAMES) {
    const size = 40000 + (hash32(p.length * 7919 + p.charCodeAt(0)) % 200000);
    fs.createFile(programPath(p), { size, gen: elfBytes(hash32(p.charCodeAt(0))) }, 0o755);
  }
  // bash's rbash and iputils' ping4 links as the real guest's /usr/bin has them (the other links,
  // /usr/bin/sh -> dash, /usr/sbin/init -> /lib/systemd/systemd, ..., come with the recorded tree)
  fs.symlink('/usr/bin/rbash', 'bash');
  fs.symlink('/usr/bin/ping4', 'ping');
  // /etc (etc_tree.ts then gives these the recording guest's bytes and stat, but for hostname and
  // hosts; the text here is what a machine without data/userland/ shows)
  const etc: Record<string, string> = {
    hostname: `${m.hostname}\n`,
    passwd: 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\nsshd:x:100:65534::/run/sshd:/usr/sbin/nologin\nuser:x:1000:1000:User,,,:/home/user:/bin/bash\n',
    group: 'root:x:0:\ndaemon:x:1:\nadm:x:4:user\nwww-data:x:33:\nuser:x:1000:\n',
    fstab: '# /etc/fstab: static file system information.\nUUID=3b4e1f2a-7c1d-4d8e-9a51-2f0c5e6d7a11 /    ext4 errors=remount-ro 0 1\n/swapfile none swap sw 0 0\n',
    hosts: `127.0.0.1\tlocalhost\n127.0.1.1\t${m.hostname}\n::1\tlocalhost ip6-localhost ip6-loopback\n`,
    'os-release': 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nVERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n',
    debian_version: '12.8\n',
    shells: '/bin/sh\n/bin/bash\n/usr/bin/bash\n',
    crontab: 'SHELL=/bin/sh\nPATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin\n17 *\t* * *\troot\tcd / && run-parts --report /etc/cron.hourly\n',
    'resolv.conf': 'nameserver 10.0.2.3\n',
    'ssh/sshd_config': 'Include /etc/ssh/sshd_config.d/*.conf\nKbdInteractiveAuthentication no\nUsePAM yes\nX11Forwarding yes\nPrintMotd no\n',
    'rsyslog.conf': 'module(load="imuxsock")\nmodule(load="imklog")\n*.*;auth,authpriv.none\t-/var/log/syslog\n',
    motd: '\nThe programs included with the Debian GNU/Linux system are free software;\n',
    issue: 'Debian GNU/Linux 12 \\n \\l\n\n',
  };
  for (const [k, v] of Object.entries(etc)) fs.createFile(`/etc/${k}`, v);
  fs.createFile('/var/log/syslog', '');
  // nginx's default site: Debian's page, the only file of the real guest's /var/www/html
  fs.createFile('/var/www/html/index.nginx-debian.html', NGINX_WELCOME);
  fs.createFile('/root/.bashrc', '# ~/.bashrc\nexport PS1="\\h:\\w\\$ "\n');
  fs.createFile('/home/user/notes.txt', 'buy milk\nfix the scheduler\nread seed 000 about swap\n');
  fs.createFile('/usr/src/app/Makefile', 'all: app\n\napp: main.o util.o\n\tcc -o app main.o util.o\n\nmain.o: main.c\n\tcc -c main.c\n\nutil.o: util.c\n\tcc -c util.c\n');
  fs.createFile('/usr/src/app/main.c', '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n');
  fs.createFile('/usr/src/app/util.c', 'int add(int a, int b) { return a + b; }\n');
  // swap file (1 GiB, as created by fallocate + mkswap) and a 200 MB data file like seed 000's
  // its blocks where the recorded guest's are (fallocate'd by scripts/record/record.sh): the `swap` recording's
  // first swap-out is slot 1 at sda1 sector 12094216 ("W 12096264 + 8 <- (8,1) 12094216"), so slot 0 is block 1511776
  fs.createFile('/swapfile', { size: 1 << 30, gen: (o, l) => new Uint8Array(l) }, 0o600).diskBlock = 1511776;
  fs.createFile('/root/YEYEYE.txt', { size: 200 * 1024 * 1024, gen: (o, l) => synthBytes(0x5eed, o, l) });
  // /dev
  fs.devNode('/dev/null', 'null', false, 1, 3);
  fs.devNode('/dev/zero', 'zero', false, 1, 5);
  fs.devNode('/dev/urandom', 'urandom', false, 1, 9);
  fs.devNode('/dev/random', 'random', false, 1, 8);
  fs.devNode('/dev/tty', 'tty', false, 5, 0);
  fs.devNode('/dev/console', 'console', false, 5, 1, 0o600);
  const sda = fs.devNode('/dev/sda', 'sda', true, 8, 0, 0o660);
  sda.size = 64 * 1024 * 1024 * 1024;
  sda.gen = (o, l) => synthBytes(0xd15c, o, l);
  sda.fs = 'devtmpfs';
  const sda1 = fs.devNode('/dev/sda1', 'sda1', true, 8, 1, 0o660);
  sda1.size = 60 * 1024 * 1024 * 1024;
  sda1.gen = (o, l) => synthBytes(0xd15d, o, l);
  fs.devNode('/dev/sda2', 'sda2', true, 8, 2, 0o660).size = 2 * 1024 * 1024 * 1024;
  fs.symlink('/dev/md127', '/dev/sda');
  populateProc(m, fs);
  // created last so that the inodes of everything above keep their numbers
  fs.symlink('/usr/bin/gcc', '/usr/bin/cc');
  for (const p of SEED_TOOL_NAMES) {
    const size = 40000 + (hash32(p.length * 7919 + p.charCodeAt(0)) % 200000);
    fs.createFile(programPath(p), { size, gen: elfBytes(hash32(p.charCodeAt(0))) }, 0o755);
  }
  populateKernelLists(fs, m.now);
  for (const p of MORE_TOOL_NAMES) {
    const size = DEBIAN_FILES[p]?.[0] ?? 40000;
    fs.createFile(programPath(p), { size, gen: elfBytes(hash32(p.charCodeAt(0) + p.length)) }, 0o755);
  }
  installLoaderFiles(fs, elfBytes);
  installLibcFiles(fs);
  populateSysClassNet(fs);
  // /proc/<pid>/maps: the process' VMAs (include/mm_types.ts Mm.mapsText); files on the root fs are 08:01
  // the environment the process's last execve passed (process/environ.ts); a kernel thread has none
  procPidFile('environ', (t) => (t.kthread || t.proc.exited ? '' : environOf(t.proc).map((x) => `${x}\0`).join('')));
  procPidFile('maps', (t) => (t.proc.mm ? t.proc.mm.mapsText((r) => (r.file?.fs === 'ext4' ? '08:01' : '00:05')) : ''));
  installTimes(m, fs);
  installEtcTree(fs, m.bootNs, INSTALL_S);
  populateSysCpu(fs, m.ncpus, m.now);
  populateTty(fs);
  installDbenchLoadfile(m, fs);
  // nginx's logs (its master opened them at boot: userland/workload.ts); last, so earlier inodes keep their numbers
  fs.mkdirp('/var/log/nginx');
  for (const f of ['access.log', 'error.log']) fs.createFile(`/var/log/nginx/${f}`, '', 0o640).mtime = machineNsOf(m.bootNs, INSTALL_S);
  // netcat-openbsd's binary (/usr/bin/nc: the alternatives link to nc.openbsd on the real guest), its size and build time
  for (const p of NET_TOOL_NAMES) {
    const ino = fs.createFile(programPath(p), { size: 43592, gen: elfBytes(hash32(p.charCodeAt(0) + 7)) }, 0o755);
    ino.mtime = ino.atime = machineNsOf(m.bootNs, 1666300757);
  }
  // the serial console (drivers/serial8250.ts): crw--w---- root:tty, as udev makes it on Debian; last,
  // so earlier inodes keep their numbers
  fs.devNode('/dev/ttyS0', 'ttyS', false, 4, 64, 0o620).gid = 5;
  for (const p of FIFO_TOOL_NAMES) {
    const [size] = DEBIAN_FILES[p];
    fs.createFile(programPath(p), { size, gen: elfBytes(hash32(p.charCodeAt(2) + p.length)) }, 0o755);
  }
  // the root's other entries on the real guest (data/recordings/system.json.gz rootdir: `ls -la /`, and
  // its mounts): mke2fs's lost+found (drwx------, four blocks: 16384), an empty media, and run, a tmpfs
  // (with run/lock, a tmpfs of its own: what else systemd and the services keep there is not modelled);
  // last, so that earlier inodes keep their numbers
  const lf = fs.mkdirp('/lost+found', 'ext4', 0o700);
  lf.size = 16384;
  lf.mtime = lf.atime = machineNsOf(m.bootNs, INSTALL_S);
  const media = fs.mkdirp('/media');
  media.mtime = media.atime = machineNsOf(m.bootNs, INSTALL_S);
  fs.mkdirp('/run', 'tmpfs', 0o755);
  fs.mkdirp('/run/lock', 'tmpfs', 0o1777);
  // the tmpfs and devtmpfs mounts' st_dev minors, as the mount table has them (fs/proc_namespace.ts)
  markBootMounts(fs);
  // the links the boot and a shell start go through (the services' /sbin/init, sh's /bin/sh): the
  // recorded tree's, made here so that a start reads none of it
  fs.symlink('/usr/sbin/init', '/lib/systemd/systemd').mtime = machineNsOf(m.bootNs, INSTALL_S);
  fs.symlink('/usr/bin/sh', 'dash').mtime = machineNsOf(m.bootNs, 1672924848);
  // the rest of the real install's tree (/usr, /var, /boot, ...: data/userland/root.tsv), beside the
  // machine's own entries; last, so that earlier inodes keep their numbers
  installRootTree(fs, m.bootNs, INSTALL_S, (p, kind) => {
    if (kind === 's') return recordedScript(p);
    const seed = hash32(p.length * 31 + p.charCodeAt(p.length - 1));
    return kind === 'e' ? elfBytes(seed) : (o, l) => synthBytes(seed, o, l);
  });
  void S_IFREG; void KERNEL_RELEASE;
}

/**
 * dbench's load file (/usr/share/dbench/client.txt of Debian's dbench 4.0-2.1, its mtime; the first
 * lines of it: programs/dbench.ts), read lazily; created last so that earlier inodes keep their numbers.
 */
function installDbenchLoadfile(m: FsMachine, fs: Fs): void {
  const size = dbenchLoadfileSize();
  if (!size) return;
  fs.mkdirp('/usr/share/dbench');
  const ino = fs.createFile('/usr/share/dbench/client.txt', { size, gen: (o, l) => dbenchLoadfile().subarray(o, o + l).slice() });
  ino.mtime = ino.atime = machineNsOf(m.bootNs, 1670856212);
}

/**
 * Give the installed tree its sizes and times: the Debian programs their package's size and
 * build time, every other file and directory of the root filesystem the install time, the
 * pseudo filesystems' roots (/proc, /sys, /dev, /tmp) the boot.
 */
function installTimes(m: FsMachine, fs: Fs): void {
  const install = machineNsOf(m.bootNs, INSTALL_S);
  const walk = (d: Inode) => {
    for (const [name, c] of d.children ?? []) {
      if (c.fs !== 'ext4' || c === d) continue;
      c.mtime = c.atime = install;
      if (c.isDir) walk(c);
    }
  };
  walk(fs.root);
  for (const [name, [size, mtime]] of Object.entries(DEBIAN_FILES)) {
    const c = fs.lookup(programPath(name));
    if (!c || !c.isReg || c.fs !== 'ext4') continue;
    c.size = size;
    c.mtime = c.atime = machineNsOf(m.bootNs, Math.min(mtime, INSTALL_S));
  }
  fs.root.mtime = fs.root.atime = install;
  for (const p of ['/proc', '/sys', '/dev', '/tmp']) { const i = fs.lookup(p); if (i) i.mtime = i.atime = 0; }
}
