/**
 * nfsd.proc3.* (stdlib/nfsd.stp) against Debian's stap 4.8 on 6.1: `stap -L` of each lists the
 * variables, types and order of data/tapset-names/nfs-points.txt's "L" lines (stap -L with the
 * kernel's debuginfo), a member 6.1 lacks as `:unknown` (nfsd.proc3.read's vlen), and reading that
 * one is a semantic error as with 4.8. (-L of the ioblock and scsi aliases: the same `:unknown`.)
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
const stap = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 90000 });
const points = path.join(__dirname, '..', '..', '..', 'data', 'tapset-names', 'nfs-points.txt');
/** The alias's locals of stap 4.8's -L line (its $ context variables left out). */
const locals = (line: string): string => line.split(' ').filter((w) => w && !w.startsWith('$') && w.includes(':') && !w.startsWith('_entry')).join(' ');

describe('nfsd.proc3.*: stap 4.8\'s -L on 6.1', function () {
  this.timeout(120000);
  const ref = new Map<string, string>();
  for (const l of fs.readFileSync(points, 'utf8').split('\n')) {
    const m = /^L (nfsd\.proc3\.[a-z]+) (.*)$/.exec(l);
    if (m) ref.set(m[1], locals(m[2]));
  }

  it('lists the variables of each entry alias in 4.8\'s order, with their types', () => {
    expect([...ref.keys()].sort()).to.deep.equal(['commit', 'create', 'lookup', 'read', 'remove', 'rename', 'write'].map((p) => `nfsd.proc3.${p}`));
    for (const [alias, want] of ref) {
      const out = stap('-L', alias).stdout.trim();
      expect(out.startsWith(alias + ' '), out).to.equal(true);
      expect(locals(out.slice(alias.length + 1)), alias).to.equal(want);
    }
    expect(ref.get('nfsd.proc3.read')).to.contain('vlen:unknown');
  });

  it('reading a variable 6.1 cannot give is a semantic error; the others compile', () => {
    expect(stap('-p2', '-e', 'probe nfsd.proc3.read { println(vlen) }').stderr).to.contain("unable to find member 'vlen'");
    const ok = stap('-p2', '-e', 'probe nfsd.proc3.* { printf("%s %s %s %d %d\\n", name, client_ip, argstr, version, uid) } probe nfsd.proc3.*.return { println(retstr) }');
    expect(ok.status, ok.stderr).to.equal(0);
  });

  it('-L of the block and scsi aliases lists a member 6.1 lacks as unknown', () => {
    expect(stap('-L', 'ioblock.request').stdout).to.equal('ioblock.request name:string devname:string ino:long sector:long flags:long rw:long opf:long vcnt:long idx:long '
      + 'phys_segments:unknown hw_segments:long size:long bdev:long bdev_contains:long p_start_sect:long $bio:struct bio*\n');
    expect(stap('-L', 'scsi.iodone').stdout).to.contain(' req_addr:unknown scsi_timer_pending:long $cmd:struct scsi_cmnd*\n');
  });
});
