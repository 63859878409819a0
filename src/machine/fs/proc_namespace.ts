/**
 * The mount table as /proc/mounts and /proc/PID/mountinfo show it (fs/proc_namespace.c show_vfsmnt and
 * show_mountinfo): the machine's mounts with the ids, devices, options and propagation the recorded
 * guest gives them (data/recordings/system.json.gz `mountinfo`, `mounts`), in its mount order; then
 * /tmp (a tmpfs on this machine, part of / on the guest) and what `mount -t tracefs|debugfs` adds.
 */
import type { Fs } from './namei';
import type { Inode } from '../include/fs';

interface Mnt { id: number; parent: number; dev: string; point: string; opts: string; shared: number; type: string; source: string; sopts: string }

const mnt = (id: number, parent: number, dev: string, point: string, opts: string, shared: number, type: string, source: string, sopts: string): Mnt =>
  ({ id, parent, dev, point, opts, shared, type, source, sopts });

/** The guest's boot mounts that the machine has (the others, securityfs, cgroup2, pstore, bpf, hugetlbfs ..., it does not model) */
const BOOT: readonly Mnt[] = [
  mnt(21, 24, '0:19', '/proc', 'rw,relatime', 5, 'proc', 'proc', 'rw'),
  mnt(22, 24, '0:20', '/sys', 'rw,relatime', 6, 'sysfs', 'sys', 'rw'),
  mnt(23, 24, '0:5', '/dev', 'rw,relatime', 2, 'devtmpfs', 'dev', 'rw,size=1001772k,nr_inodes=250443,mode=755,inode64'),
  mnt(24, 1, '8:1', '/', 'rw,relatime', 1, 'ext4', '/dev/sda1', 'rw,errors=remount-ro'),
  mnt(28, 24, '0:23', '/run', 'rw,nosuid,nodev', 11, 'tmpfs', 'tmpfs', 'rw,size=402732k,nr_inodes=819200,mode=755,inode64'),
  mnt(29, 28, '0:24', '/run/lock', 'rw,nosuid,nodev,noexec,relatime', 12, 'tmpfs', 'tmpfs', 'rw,size=5120k,inode64'),
  mnt(34, 22, '0:7', '/sys/kernel/debug', 'rw,nosuid,nodev,noexec,relatime', 14, 'debugfs', 'debugfs', 'rw'),
  mnt(37, 22, '0:12', '/sys/kernel/tracing', 'rw,nosuid,nodev,noexec,relatime', 17, 'tracefs', 'tracefs', 'rw'),
  // not on the guest: the machine's /tmp is a tmpfs of its own (the next id and anonymous device after the guest's)
  mnt(68, 24, '0:36', '/tmp', 'rw,nosuid,nodev', 24, 'tmpfs', 'tmpfs', 'rw,inode64'),
];

/** The table: the boot mounts, then each later `mount` (fs.mounts after the boot's tracefs and debugfs), under the mount holding its directory. */
function table(fs: Fs): Mnt[] {
  const out = [...BOOT];
  for (const x of fs.mounts.slice(2)) {
    const parent = out.filter((p) => x.at === p.point || x.at.startsWith(p.point === '/' ? '/' : `${p.point}/`)).sort((a, b) => b.point.length - a.point.length)[0];
    const same = BOOT.find((b) => b.type === x.fs);
    // a mount under a shared one joins a peer group of its own (systemd makes / shared: every guest mount has one)
    out.push(mnt(out[out.length - 1].id + 1, parent?.id ?? 24, same?.dev ?? '0:0', x.at, 'rw,relatime', Math.max(...out.map((o) => o.shared)) + 1, x.fs, 'nodev', 'rw'));
  }
  return out;
}

/** /proc/mounts: source, point, type, the mount's options with the superblock's after them (rw/ro once), "0 0" */
export function procMountsText(fs: Fs): string {
  return table(fs).map((x) => `${x.source} ${x.point} ${x.type} ${x.opts}${x.sopts.replace(/^r[wo]/, '')} 0 0\n`).join('');
}

/** /proc/PID/mountinfo: id, parent id, major:minor, root, point, mount options, the peer group, "-", type, source, superblock options */
export function procMountinfoText(fs: Fs): string {
  return table(fs).map((x) => `${x.id} ${x.parent} ${x.dev} / ${x.point} ${x.opts}${x.shared ? ` shared:${x.shared}` : ''} - ${x.type} ${x.source} ${x.sopts}\n`).join('');
}

/**
 * Mark the roots of the boot's tmpfs and devtmpfs mounts with their st_dev minor (Inode.mountMinor, from
 * the table's major:minor): stat's st_dev and statfs's size= of a file below one are its mount's.
 */
export function markBootMounts(fs: Fs): void {
  for (const x of BOOT) {
    const root = x.type === 'tmpfs' || x.type === 'devtmpfs' ? fs.lookup(x.point) : null;
    if (root) root.mountMinor = Number(x.dev.split(':')[1]);
  }
}

/** The root of the mount a tmpfs or devtmpfs file is on (the nearest directory above it of its filesystem marked by markBootMounts), or null */
export function mountRootOf(ino: Inode): Inode | null {
  for (let d: Inode | null = ino; d && d.fs === ino.fs; d = d.parent === d ? null : d.parent) if (d.mountMinor) return d;
  return null;
}

/** A boot mount's size= in KiB (its superblock options), or undefined when it has none */
export function mountSizeKb(fs: Fs, root: Inode): number | undefined {
  const point = fs.pathOf(root);
  const size = /(?:^|,)size=(\d+)k/.exec(BOOT.find((x) => x.point === point)?.sopts ?? '');
  return size ? Number(size[1]) : undefined;
}
