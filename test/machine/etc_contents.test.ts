/**
 * The simulated /etc holds the recording guest's own bytes (data/userland/etc.json and
 * etc-files.json.gz, made by scripts/userland/etc_tree.ts from the tar recording's metadata and the
 * guest's disk, scripts/record/pull_etc.sh). The sha256 sums below are of the files copied off that
 * disk (`sha256sum` on the copy, REC_WORK=/work/rec-etc, 2026-11-27), the sizes are tar's newfstatat in
 * data/recordings/tar.json.gz.
 */
import { expect } from 'chai';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { userlandDataFile } from '../../src/machine/process/ldso';
import { findRecording, loadRecording, Recording } from '../../scripts/record/recording';
import { splitArgs } from '../../scripts/paths/strace';

type Entry = [string, string, number, number, number, number, number, number, number, string | null];
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * The order each directory's entries came in from getdents64 in a recording (path -> names): the
 * directories opened by name (openat(AT_FDCWD, "/etc") or relative to an open directory's fd, or a
 * copy of such a descriptor) and each getdents64's d_names on their descriptor; `inodes` gets each entry's d_ino (path -> inode).
 */
function recordedDirOrder(r: Recording, inodes: Map<string, number>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const fds = new Map<string, string>();
  for (const [pid, , name, args, ret] of r.strace as [number, number, string, string, string][]) {
    if (name === 'openat' && /^\d+$/.test(ret)) {
      const a = splitArgs(args).map((x) => x.trim());
      const p = /^"(.*)"$/.exec(a[1])?.[1] ?? '';
      const base = a[0] === 'AT_FDCWD' || a[0] === '-100' || p.startsWith('/') ? '' : fds.get(`${pid}:${a[0]}`);
      if (base !== undefined) fds.set(`${pid}:${ret}`, p.startsWith('/') ? p : `${base}/${p}`);
    } else if ((name === 'fcntl' && /^(0x406|0)$/.test(splitArgs(args)[1]?.trim() ?? '') || name === 'dup') && /^\d+$/.test(ret)) {
      // F_DUPFD_CLOEXEC / F_DUPFD / dup: the copy names the same directory (find's fts keeps one)
      const d = fds.get(`${pid}:${splitArgs(args)[0].trim()}`);
      if (d !== undefined) fds.set(`${pid}:${ret}`, d);
    } else if (name === 'getdents64') {
      const dir = fds.get(`${pid}:${splitArgs(args)[0].trim()}`);
      if (!dir) continue;
      const names = [...args.matchAll(/d_ino=(\d+), [^}]*d_name="((?:[^"\\]|\\.)*)"/g)].filter((x) => x[2] !== '.' && x[2] !== '..');
      out.set(dir, [...(out.get(dir) ?? []), ...names.map((x) => x[2])]);
      for (const x of names) inodes.set(`${dir}/${x[2]}`, Number(x[1]));
    }
  }
  return out;
}

describe('machine: /etc contents from the recording guest', () => {
  const entries = (JSON.parse(fs.readFileSync(userlandDataFile('etc.json'), 'utf8')) as { entries: Entry[] }).entries;
  const long = new Map((JSON.parse(zlib.gunzipSync(fs.readFileSync(userlandDataFile('etc-files.json.gz'))).toString('utf8')) as
    { files: [string, string][] }).files.map(([p, b]) => [p, Buffer.from(b, 'base64')]));

  it('has every recorded file\'s whole content, of the recorded size', () => {
    let n = 0;
    for (const [p, type, , , , size, , , , body] of entries) {
      if (type !== 'f') continue;
      const b = body !== null ? Buffer.from(body, 'latin1') : long.get(p);
      expect(b, p).to.not.equal(undefined);
      expect(b!.length, p).to.equal(size);
      n++;
    }
    expect(n).to.equal(174);
    expect(long.size).to.be.greaterThan(50);
  });

  it('serves them byte for byte (nginx.conf, sshd\'s moduli, login.defs, a host key, sshd_config, crontab)', () => {
    const m = new Machine({ seed: 1 });
    const read = (p: string): Uint8Array => { const ino = m.fs.lookup(p, '/')!; return ino.readBytes(0, ino.size); };
    expect(sha(read('/etc/nginx/nginx.conf'))).to.equal('48c6a4ec1e1fd28ccf968490f07e34a1d7f755793b2108a3ed8670b1ee2a0aa2');
    expect(read('/etc/ssh/moduli').length).to.equal(573928);
    expect(sha(read('/etc/ssh/moduli'))).to.equal('17a9f49ca51718883cffaccf444ef4ca1e78216bbf88e0a897ef04677e5a06a6');
    expect(sha(read('/etc/login.defs'))).to.equal('9db13777d7524a39ba1182742ccebc5b0435314f862050f601e240d58516d9b0');
    expect(sha(read('/etc/ssh/ssh_host_ed25519_key.pub'))).to.equal('348b2a24008f3ab5a347f5a30d62ac2157076ab9ce4779651042c3cee02cfc59');
    // files the machine also writes (fstree.ts) hold the guest's bytes too, but for its host name
    expect(sha(read('/etc/ssh/sshd_config'))).to.equal('160f305635ece2300959616ab840adeb028dfc3a986bc14859675aaf55e70bbe');
    expect(sha(read('/etc/crontab'))).to.equal('2da6929c30925df6d73cfc92293952baf633ca88acd7751707eefa684ba8dcd1');
    // passwd and group are Debian 12's base files: the 958 bytes the recorded `cat /etc/passwd` read
    // (data/recordings/cat.json.gz), 20 users from root to sshd; 41 groups up to _ssh
    const passwd = Buffer.from(read('/etc/passwd')).toString('latin1');
    expect(passwd.length).to.equal(958);
    expect(passwd.split('\n')[0]).to.equal('root:x:0:0:root:/root:/bin/bash');
    expect(passwd.trimEnd().split('\n').pop()).to.equal('sshd:x:100:65534::/run/sshd:/usr/sbin/nologin');
    const group = Buffer.from(read('/etc/group')).toString('latin1');
    expect(group.length).to.equal(507);
    expect(group.trimEnd().split('\n').pop()).to.equal('_ssh:x:102:');
    // a read past a page boundary in the middle of the file
    const ino = m.fs.lookup('/etc/ssh/moduli', '/')!;
    expect(Buffer.from(ino.readBytes(4000, 200))).to.deep.equal(Buffer.from(long.get('/etc/ssh/moduli')!.subarray(4000, 4200)));
  });

  // every recording that walks /etc was made on one guest disk (scripts/record/record.sh: a fixed
  // UUID and directory-hash seed, mke2fs -d in alphasort order), so each lists every directory of
  // /etc in the order the machine's /etc has (etc.json, from the tar recording), inode for inode
  it('is listed in etc.json\'s order by every recording that walks it (tar, tar-gzip, ls -l, find, cp -r)', () => {
    const children = new Map<string, string[]>();
    for (const [p] of entries) {
      if (p === '/etc') continue;
      const dir = p.slice(0, p.lastIndexOf('/'));
      children.set(dir, [...(children.get(dir) ?? []), p.slice(dir.length + 1)]);
    }
    const inode = new Map(entries.map((e) => [e[0], e[8]] as const));
    for (const rec of ['tar', 'tar-gzip', 'ls-l', 'find', 'cp-r']) {
      const r = loadRecording(findRecording(rec)!);
      const inodes = new Map<string, number>();
      const order = recordedDirOrder(r, inodes);
      const dirs = [...order.keys()].filter((d) => d === '/etc' || d.startsWith('/etc/'));
      expect(dirs.length, rec).to.be.at.least(rec === 'ls-l' ? 1 : 40);
      for (const d of dirs) {
        expect(order.get(d), `${rec}: ${d}`).to.deep.equal(children.get(d) ?? []);
        // and each entry's d_ino is etc.json's inode number
        for (const n of order.get(d)!) expect(inodes.get(`${d}/${n}`), `${rec}: ${d}/${n}`).to.equal(inode.get(`${d}/${n}`));
      }
    }
  });
});
