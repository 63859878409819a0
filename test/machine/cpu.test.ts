// The machine's CPU is the recorded guest's (data/kernel/cpu.txt, recorded by
// scripts/record/guest/cpu.sh under qemu-debian-guest with SMP=4): /proc/cpuinfo and
// /sys/devices/system/cpu print what the guest printed, and every CPU-dependent kernel function the
// machine's paths name is the one 6.1's alternatives patch in for the recorded flags.
import { expect } from 'chai';
import { Machine, installKernelSemantics } from '../../src/machine/machine';
import { pathNames, pathItems } from '../../src/machine/paths/dsl';
import { alternativesFor, cpuAlternatives, cpuFlags, cpuinfoText, cpulist, cpumask, recordedCpuSection, recordedCpuSectionNames } from '../../src/machine/kernel/cpu';

import { KERNEL_UTS_VERSION } from '../../src/kernel/config';

installKernelSemantics();

const show = (m: Machine, p: string): string => {
  const ino = m.fs.lookup(p);
  expect(ino, p).to.not.equal(null);
  return ino!.show!();
};

describe('machine: the CPU (recorded guest)', () => {
  const m = new Machine({ seed: 1 });

  it('/proc/cpuinfo is the guest\'s, all fields of all four CPUs', () => {
    const text = show(m, '/proc/cpuinfo');
    expect(text).to.equal(recordedCpuSection('/proc/cpuinfo'));
    expect(text).to.contain('vendor_id\t: AuthenticAMD\n');
    expect(text).to.contain('model name\t: QEMU Virtual CPU version 2.5+\n');
    expect(text.match(/^processor\t: \d+$/gm)).to.have.length(4);
    expect(text.endsWith('power management:\n\n')).to.equal(true);
  });

  it('/sys/devices/system/cpu holds every recorded file with the recorded contents', () => {
    const names = recordedCpuSectionNames().filter((n) => n.startsWith('/sys/devices/system/cpu/') && !n.startsWith('/sys/devices/system/cpu/cpu0/cpuidle'));
    expect(names.length).to.be.greaterThan(60);
    for (const n of names) expect(show(m, n), n).to.equal(recordedCpuSection(n));
    expect(m.fs.lookup('/sys/devices/system/cpu/cpu0/cpuidle'), 'no cpuidle driver: no per-CPU states').to.equal(null);
    expect(m.fs.lookup('/sys/devices/system/cpu/cpu0/online'), 'the boot CPU has no online file').to.equal(null);
  });

  it('/proc/version and uname -v are the guest\'s boot banner (its dmesg\'s first line)', () => {
    const banner = recordedCpuSection('dmesg').split('\n').map((l) => l.replace(/^\[[ \d.]+\] /, '')).find((l) => l.startsWith('Linux version '));
    expect(banner, 'the recorded dmesg has the banner').to.not.equal(undefined);
    expect(show(m, '/proc/version')).to.equal(banner + '\n');
    expect(banner).to.contain(` ${KERNEL_UTS_VERSION}`);
  });

  it('cpuidle/current_governor takes an available governor only', () => {
    const ino = m.fs.lookup('/sys/devices/system/cpu/cpuidle/current_governor')!;
    expect(ino.store!('teo\n')).to.equal(-22);
    expect(ino.store!('ladder\n')).to.equal(7);
    expect(ino.show!()).to.equal('ladder\n');
  });

  it('more CPUs than recorded: ids and counts follow, masks grow', () => {
    const t = cpuinfoText(6);
    expect(t.match(/^processor\t: 5$/m)).to.not.equal(null);
    expect(t.match(/^siblings\t: 6$/gm)).to.have.length(6);
    expect(cpulist([0, 1, 2, 4])).to.equal('0-2,4');
    expect(cpumask([0, 1, 2, 3], 4)).to.equal('f');
    expect(cpumask([33], 40)).to.equal('2,00000000');
  });

  it('alternatives follow the recorded flags (rep_good, no erms/fsrm) and bugs (amd_e400)', () => {
    const f = cpuFlags();
    expect(f.has('rep_good')).to.equal(true);
    expect(f.has('erms')).to.equal(false);
    const a = cpuAlternatives();
    expect(a.clearUser).to.equal('clear_user_rep_good');
    expect(a.clearPage).to.equal('clear_page_rep');
    expect(a.copyUserGeneric).to.equal('copy_user_generic_string');
    expect(a.copyMcToKernel).to.equal('__memcpy');
    expect(a.idle).to.equal('amd_e400_idle');
    expect(a.cpuidleDriver).to.equal('none');
    // the guest's boot log names the idle routine select_idle_routine() chose
    expect(recordedCpuSection('dmesg')).to.contain('process: using AMD E400 aware idle routine');
    // an ERMS+FSRM Intel CPU patches the other way
    const intel = alternativesFor(new Set(['rep_good', 'erms', 'fsrm', 'monitor']), new Set(), 'GenuineIntel');
    expect([intel.clearUser, intel.clearPage, intel.copyUserGeneric, intel.idle]).to.deep.equal([null, 'clear_page_erms', 'copy_user_enhanced_fast_string', 'mwait_idle']);
  });

  it('every CPU-dependent function the paths name is the patched-in variant', () => {
    const a = cpuAlternatives();
    const families: [RegExp, string | null][] = [
      [/^clear_user_(erms|rep_good|original)$/, a.clearUser],
      [/^clear_page_(erms|rep|orig)$/, a.clearPage],
      [/^copy_user_(enhanced_fast_string|generic_string|generic_unrolled)$/, a.copyUserGeneric],
      [/^copy_mc_(enhanced_fast_string|fragile)$/, a.copyMcToKernel],
      [/^(memcpy_erms|memcpy_orig|__memcpy)$/, a.memcpy],
      [/^(memset_erms|memset_orig|__memset)$/, a.memset],
      [/^(amd_e400_idle|mwait_idle|default_idle)$/, a.idle],
    ];
    const bad: string[] = [];
    let seen = 0;
    for (const p of pathNames()) {
      for (const it of pathItems(p)) {
        for (const [re, want] of families) {
          if (!re.test(it)) continue;
          seen++;
          if (it !== want) bad.push(`${p}: ${it} (the recorded CPU runs ${want ?? 'an inline rep stosb'})`);
        }
      }
    }
    expect(bad).to.deep.equal([]);
    expect(seen).to.be.at.least(2); // read_zero's clear_user, the idle loop's x86_idle (recorded trees carry the guest's own names)
  });
});
