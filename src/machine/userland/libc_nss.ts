/**
 * glibc 2.36's name service switch and time zone set-up as programs reach them (getpwuid, getgrgid,
 * localtime), with the system calls strace shows on Debian 12 (data/recordings/stat.json.gz):
 *
 * - each lookup first asks nscd (nscd/nscd_helper.c open_socket: socket(AF_UNIX, SOCK_STREAM |
 *   SOCK_CLOEXEC | SOCK_NONBLOCK) and connect to /var/run/nscd/socket, twice: the passwd/group
 *   request and the database mapping), closing the socket when the daemon is not there; after that
 *   failure the database does without nscd for the next 100 lookups;
 * - the first lookup reads /etc/nsswitch.conf (nss/nss_database.c: stat of the file and of /, then
 *   open, fstat, read to the end, fstat, close); later lookups stat it to see whether it changed;
 * - the `files` backend opens /etc/passwd or /etc/group O_CLOEXEC, fstats it, rewinds it and reads
 *   4 KiB buffers until the entry is found;
 * - tzset reads /etc/localtime (time/tzfile.c: open, fstat, fstat, a 4 KiB read, seek back to the
 *   TZif v2 footer, read it).
 *
 * installLibcFiles creates the two configuration files Debian 12 ships (libc-bin's nsswitch.conf,
 * tzdata's Etc/UTC behind the /etc/localtime link).
 */
import type { U } from '../process/user';
import type { Op, SysResult } from '../include/sched';
import { bytesToString } from '../process/user';

type G<T> = Generator<Op, T, SysResult>;

const AF_UNIX = 1, SOCK_STREAM = 1, SOCK_CLOEXEC = 0x80000, SOCK_NONBLOCK = 0x800, O_CLOEXEC = 0x80000;
const AT_EMPTY_PATH = 0x1000, AT_FDCWD = -100;

/** per-process state of the C library's NSS and tz code (a U is one process image) */
const nssLoaded = new WeakSet<U>();
const tzLoaded = new WeakSet<U>();

/**
 * __nss_not_use_nscd_<db> per process image: 0 asks nscd; after a failed connect 1, counted up by each
 * later lookup and reset to 0 (ask again) past NSS_NSCD_RETRY (100) lookups (nscd/nscd_getpw_r.c)
 */
const notUseNscd = new WeakMap<U, Map<string, number>>();
const NSS_NSCD_RETRY = 100;

/** one try to reach nscd: its socket made, connected (ENOENT without the daemon), closed */
function* nscdSocket(u: U): G<boolean> {
  const fd = (yield* u.sys('socket', [AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0])).ret;
  if (fd < 0) return false;
  const r = yield* u.sys('connect', [fd, 0, 110], { path: '/var/run/nscd/socket' });
  yield* u.close(fd);
  return r.ret === 0;
}
/** a lookup in `db` asks nscd first (the mapped database, then the socket request), unless it failed lately */
function* nscd(u: U, db: string): G<void> {
  let m = notUseNscd.get(u);
  if (!m) notUseNscd.set(u, (m = new Map()));
  let n = m.get(db) ?? 0;
  if (n > 0 && ++n > NSS_NSCD_RETRY) n = 0;
  m.set(db, n);
  if (n > 0) return;
  // __nscd_get_map_ref's request for the database mapping, then __nscd_open_socket for the lookup
  const mapped = yield* nscdSocket(u);
  const asked = yield* nscdSocket(u);
  if (!mapped && !asked) m.set(db, 1);
}

function* nssConfig(u: U): G<void> {
  if (nssLoaded.has(u)) { yield* u.stat('/etc/nsswitch.conf'); return; }
  nssLoaded.add(u);
  yield* u.stat('/etc/nsswitch.conf');
  yield* u.stat('/');
  const fd = yield* u.open('/etc/nsswitch.conf', O_CLOEXEC);
  if (fd < 0) return;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  for (;;) if ((yield* u.read(fd, 4096)).ret <= 0) break;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.close(fd);
}

/** the `files` backend: the line of `db` whose third field is `id`, read 4 KiB at a time */
function* filesLookup(u: U, db: string, id: number): G<string[] | null> {
  const fd = yield* u.open(db, O_CLOEXEC);
  if (fd < 0) return null;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.lseek(fd, 0, 0);
  let buf = '';
  let found: string[] | null = null;
  for (;;) {
    const r = yield* u.read(fd, 4096);
    if (r.ret <= 0 || !r.data) break;
    buf += bytesToString(r.data);
    const lines = buf.split('\n');
    buf = lines.pop() ?? '';
    found = lines.map((l) => l.split(':')).find((f) => f.length > 2 && Number(f[2]) === id) ?? null;
    if (found) break;
  }
  if (!found && buf) { const f = buf.split(':'); if (f.length > 2 && Number(f[2]) === id) found = f; }
  yield* u.close(fd);
  return found;
}

/** getpwuid(uid)->pw_name, or null */
export function* getpwuidName(u: U, uid: number): G<string | null> {
  yield* nscd(u, 'passwd');
  yield* nssConfig(u);
  return (yield* filesLookup(u, '/etc/passwd', uid))?.[0] ?? null;
}

/** getgrgid(gid)->gr_name, or null */
export function* getgrgidName(u: U, gid: number): G<string | null> {
  yield* nscd(u, 'group');
  yield* nssConfig(u);
  return (yield* filesLookup(u, '/etc/group', gid))?.[0] ?? null;
}

/** gnulib's idcache.c (getuser/getgroup), procps' pwcache: one getpwuid/getgrgid per id and process, the number when there is no entry */
export class IdCache {
  private users = new Map<number, string>();
  private groups = new Map<number, string>();
  *user(u: U, id: number): G<string> {
    let n = this.users.get(id);
    if (n === undefined) this.users.set(id, (n = (yield* getpwuidName(u, id)) ?? String(id)));
    return n;
  }
  *group(u: U, id: number): G<string> {
    let n = this.groups.get(id);
    if (n === undefined) this.groups.set(id, (n = (yield* getgrgidName(u, id)) ?? String(id)));
    return n;
  }
}

/** tzset's first call: /etc/localtime read as glibc's tzfile does (the machine's zone is UTC either way) */
export function* tzset(u: U): G<void> {
  if (tzLoaded.has(u)) return;
  tzLoaded.add(u);
  const fd = yield* u.open('/etc/localtime', O_CLOEXEC);
  if (fd < 0) return;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  const r = yield* u.read(fd, 4096);
  // the v1 block read, the v2 header and data after it: seek back to the second header and read on
  if (r.ret > 60) { yield* u.lseek(fd, -60, 1); yield* u.read(fd, 4096); }
  yield* u.close(fd);
}

/** Debian 12's /etc/nsswitch.conf (libc-bin's /usr/share/libc-bin/nsswitch.conf, 494 bytes) */
const NSSWITCH = `# /etc/nsswitch.conf
#
# Example configuration of GNU Name Service Switch functionality.
# If you have the \`glibc-doc-reference' and \`info' packages installed, try:
# \`info libc "Name Service Switch"' for information about this file.

passwd:         files
group:          files
shadow:         files
gshadow:        files

hosts:          files dns
networks:       files

protocols:      db files
services:       db files
ethers:         db files
rpc:            db files

netgroup:       nis
`;
/** the size of tzdata's Etc/UTC (utcTzif): the boot makes the file, its bytes are made when first read */
const UTC_TZIF_SIZE = 114;
let utcTzifBytes: Buffer | null = null;
/** tzdata's Etc/UTC (114 bytes: a TZif2 v1 block, the v2 block, the "UTC0" footer) */
function utcTzif(): Buffer {
  if (utcTzifBytes) return utcTzifBytes;
  const block = Buffer.alloc(54);
  block.write('TZif2', 0, 'latin1');
  block.writeUInt32BE(1, 36); // tzh_typecnt
  block.writeUInt32BE(4, 40); // tzh_charcnt
  block.write('UTC\0', 50, 'latin1');
  return (utcTzifBytes = Buffer.concat([block, block, Buffer.from('\nUTC0\n', 'latin1')]));
}

interface LibcFs {
  lookup(p: string): unknown;
  mkdirp(p: string): unknown;
  symlink(p: string, target: string): unknown;
  createFile(p: string, content: string | { size: number; gen: (off: number, len: number) => Uint8Array }, mode?: number): unknown;
}
/** /etc/nsswitch.conf and /etc/localtime -> /usr/share/zoneinfo/Etc/UTC, as a Debian 12 install has them */
export function installLibcFiles(fs: LibcFs): void {
  if (!fs.lookup('/etc/nsswitch.conf')) fs.createFile('/etc/nsswitch.conf', NSSWITCH);
  if (!fs.lookup('/usr/share/zoneinfo/Etc/UTC')) {
    fs.mkdirp('/usr/share/zoneinfo/Etc');
    fs.createFile('/usr/share/zoneinfo/Etc/UTC', { size: UTC_TZIF_SIZE, gen: (o, l) => Uint8Array.from(utcTzif().subarray(o, o + l)) }, 0o644);
  }
  if (!fs.lookup('/etc/localtime')) fs.symlink('/etc/localtime', '/usr/share/zoneinfo/Etc/UTC');
}

/** the directories ld.so searches for a library not in ld.so.cache, with the hwcaps subdirectories it tries first */
const LIB_DIRS = ['/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib', '/usr/lib'];
const HWCAP_SUBDIRS = ['tls/x86_64/x86_64', 'tls/x86_64', 'tls/x86_64', 'tls', 'x86_64/x86_64', 'x86_64', 'x86_64', ''];

/**
 * dlopen of a library that is not installed (libproc2's libnuma, procps-ng 4.0.2): ld.so.cache mapped,
 * the system directories tried (the first search also stats each hwcaps subdirectory), the cache unmapped
 */
export function* dlopenMissing(u: U, name: string, first: boolean): G<void> {
  const fd = yield* u.open('/etc/ld.so.cache', 0x80000);
  let size = 0;
  if (fd >= 0) {
    const st = yield* u.fstat(fd);
    size = typeof st === 'number' ? 0 : st.size;
    yield* u.sys('mmap', [0, size, 1, 2, fd, 0]);
    yield* u.close(fd);
  }
  for (const dir of LIB_DIRS) {
    for (const sub of first ? HWCAP_SUBDIRS : ['']) {
      const d = sub ? `${dir}/${sub}` : dir;
      yield* u.open(`${d}/${name}`, 0x80000);
      if (first) yield* u.sys('newfstatat', [AT_FDCWD, d, 0, 0]);
    }
  }
  if (fd >= 0) yield* u.sys('munmap', [0, size], { region: 'ld.so.cache' });
}

/**
 * getaddrinfo's look-up of a port given as a service name (getservbyname_r, netcat-openbsd's client
 * with a numeric port too: AI_NUMERICSERV is not set): nscd asked, nsswitch.conf's `services: db files`,
 * the `db` module dlopened (libnss_db is not installed: the search fails), then /etc/services (absent on
 * the real guest: no netbase).  The strace of the real `nc -u -w 1 127.0.0.1 9999` (data/recordings/udp).
 */
export function* servicesLookup(u: U): G<void> {
  yield* nscd(u, 'services');
  yield* nssConfig(u);
  yield* dlopenMissing(u, 'libnss_db.so.2', true);
  const fd = yield* u.open('/etc/services', O_CLOEXEC);
  if (fd < 0) return;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  for (;;) if ((yield* u.read(fd, 4096)).ret <= 0) break;
  yield* u.close(fd);
}

/** per-process state of the resolver (resolv/res_init.c, resolv_conf.c): the configuration read once */
const resolvLoaded = new WeakSet<U>();
/**
 * __resolv_context_get: the first call of a process reads the configuration (the resolv_conf cache
 * stats /etc/resolv.conf; res_init runs _res_hconf_init once: /etc/host.conf opened, fstat, read to
 * the end, closed; its __libc_once wakes waiters: futex; then /etc/resolv.conf opened, fstat, read,
 * uname for the default domain, fstat again for the cache's file identity, closed); later calls stat
 * /etc/resolv.conf to see whether it changed.  Strace of tbench's gethostbyname on Debian 12
 * (data/recordings/tbench.json.gz).
 */
function* resolvContext(u: U): G<void> {
  yield* u.stat('/etc/resolv.conf');
  if (resolvLoaded.has(u)) return;
  resolvLoaded.add(u);
  const readConf = function* (p: string, uname: boolean): G<void> {
    const fd = yield* u.open(p, O_CLOEXEC);
    if (fd < 0) return;
    yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
    for (;;) if ((yield* u.read(fd, 4096)).ret <= 0) break;
    if (uname) { yield* u.uname(); yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]); }
    yield* u.close(fd);
  };
  yield* readConf('/etc/host.conf', false);
  yield* u.sys('futex', [0, 0x81, 0x7fffffff]);
  yield* readConf('/etc/resolv.conf', true);
}

/** inet_aton's forms (a, a.b, a.b.c, a.b.c.d; decimal, 0x hex, 0 octal) as a dotted quad, or null */
function inetAton(s: string): string | null {
  const parts = s.split('.');
  if (parts.length > 4 || parts.some((p) => !/^(0x[0-9a-f]+|[0-9]+)$/i.test(p))) return null;
  const v = parts.map((p) => (/^0x/i.test(p) ? Number.parseInt(p, 16) : /^0[0-7]+$/.test(p) ? Number.parseInt(p, 8) : Number(p)));
  const max = [0xffffffff, 0xffffff, 0xffff, 0xff];
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const last = i === v.length - 1;
    if (!last && v[i] > 255) return null;
    if (last && v[i] > max[i]) return null;
    n += last ? v[i] : v[i] * 2 ** (8 * (3 - i));
  }
  return [24, 16, 8, 0].map((b) => Math.floor(n / 2 ** b) % 256).join('.');
}

/**
 * gethostbyname(name): the dotted quad of its first address, or null (HOST_NOT_FOUND).  Digits and dots
 * are converted without a look-up (__nss_hostname_digits_dots); other names go through NSS `hosts:
 * files dns`: nscd asked, nsswitch.conf, /etc/hosts read to the end (host.conf's `multi on`). The machine
 * has no DNS server on its loopback-only network: a name not in /etc/hosts is not found.
 */
export function* gethostbyname(u: U, name: string): G<string | null> {
  yield* resolvContext(u);
  if (/^[0-9.]+$/.test(name) || /^0x/i.test(name)) return inetAton(name);
  yield* nscd(u, 'hosts');
  yield* nssConfig(u);
  const fd = yield* u.open('/etc/hosts', O_CLOEXEC);
  if (fd < 0) return null;
  yield* u.sys('newfstatat', [fd, '', 0, AT_EMPTY_PATH]);
  yield* u.lseek(fd, 0, 0);
  let text = '';
  for (;;) {
    const r = yield* u.read(fd, 4096);
    if (r.ret <= 0 || !r.data) break;
    text += bytesToString(r.data);
  }
  yield* u.close(fd);
  for (const line of text.split('\n')) {
    const f = line.replace(/#.*/, '').trim().split(/\s+/);
    if (f.length > 1 && f.slice(1).includes(name) && inetAton(f[0])) return inetAton(f[0]);
  }
  return null;
}
