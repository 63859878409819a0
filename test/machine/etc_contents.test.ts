/**
 * The simulated /etc holds the recording guest's own bytes (data/userland/etc.json and
 * etc-files.json.gz, made by scripts/userland/etc_tree.ts from the tar recording's metadata and the
 * guest's disk, scripts/record/pull_etc.sh). The sha256 sums below are of the files copied off that
 * disk (`sha256sum` on the copy), the sizes are tar's newfstatat in data/recordings/tar.json.gz.
 */
import { expect } from 'chai';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as zlib from 'zlib';
import { Machine } from '../../src/machine/machine';
import { userlandDataFile } from '../../src/machine/process/ldso';

type Entry = [string, string, number, number, number, number, number, number, number, string | null];
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

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
    expect(sha(read('/etc/ssh/ssh_host_ed25519_key.pub'))).to.equal('251b9cf62c224b9163965a94af9b539cd0341a71cb1b3c231611bf86d0765a5e');
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
});
