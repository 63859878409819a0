/**
 * The install's shell scripts and binaries (data/userland/root.tsv kinds, scripts.json): gunzip, zcat,
 * which, egrep and fgrep are Debian's own scripts, run by the machine's dash through binfmt_script
 * and exec'ing the modelled gzip and grep; an ELF file begins as one; a binary the machine has no
 * program for says so. Expected output: the same commands on this Debian 12 host.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import { recordedScript } from '../../src/machine/userland/root_tree';
import { tracepointProbeRegister, tracepointProbeUnregister } from '../../src/kernel/tracepoint';

describe('machine: the install\'s shell scripts and binaries', () => {
  const m = new Machine({ seed: 1 });

  it('keeps the text of /usr/bin\'s shell scripts', () => {
    const text = Buffer.from(recordedScript('/usr/bin/gunzip')(0, 4096)).toString('latin1');
    expect(text.startsWith('#!/bin/sh\n')).to.equal(true);
    expect(text).to.include('exec gzip -d "$@"');
    expect(m.run('wc -c < /usr/bin/gunzip; head -1 /usr/bin/which.debianutils').out).to.equal('2346\n#! /bin/sh\n');
  });

  it('gunzip, zcat, which, egrep and fgrep run as Debian\'s scripts', () => {
    const r = m.run('cd /tmp; echo hello | gzip > hz.gz; gunzip -c hz.gz; zcat hz.gz; gunzip hz.gz; cat hz; '
      + 'which ls gzip nope; echo rc=$?; which -a sh; zcat --version | head -1; gunzip --help | head -2; '
      + 'echo "a b" | egrep "a|x"; echo xyz | fgrep y');
    expect(r.out).to.equal('hello\nhello\nhello\n/usr/bin/ls\n/usr/bin/gzip\nrc=1\n/usr/bin/sh\n/bin/sh\nzcat (gzip) 1.12\n'
      + 'Usage: /usr/bin/gunzip [OPTION]... [FILE]...\nUncompress FILEs (by default, in-place).\na b\nxyz\n');
  });

  it('zcat is an exec of the script (dash runs it), then its exec of gzip found on the PATH', () => {
    const seen: string[] = [];
    const probe = (_d: unknown, _t: unknown, _old: unknown, bprm: unknown): void => { seen.push(String((bprm as { filename: string }).filename)); };
    tracepointProbeRegister('sched_process_exec', probe, null);
    try {
      expect(m.run('cd /tmp; echo x | gzip > c.gz; zcat c.gz').out).to.equal('x\n');
    } finally {
      tracepointProbeUnregister('sched_process_exec', probe, null);
    }
    expect(seen.slice(-2)).to.deep.equal(['/usr/bin/zcat', '/usr/bin/gzip']);
  });

  it('an ELF file begins as one; a binary the machine does not model says so and exits 127', () => {
    expect(m.run('xxd -l 8 /usr/bin/ls; xxd -l 4 /usr/lib/x86_64-linux-gnu/libc.so.6').out).to.equal(
      '00000000: 7f45 4c46 0201 0100                      .ELF....\n00000000: 7f45 4c46                                .ELF\n');
    const r = m.run('od -c /etc/hostname 2>&1; echo rc=$?');
    expect(r.out).to.equal("od: /usr/bin/od is not modelled by tapsim's simulated userland (only its size and date are Debian's)\nrc=127\n");
  });
});
