/**
 * The machine's CPUs are the recorded guest's: an "AuthenticAMD QEMU Virtual CPU version 2.5+"
 * (family 15, model 107) under QEMU without KVM, as data/kernel/cpu.txt holds it (recorded by
 * scripts/record/guest/cpu.sh: /proc/cpuinfo, lscpu, /sys/devices/system/cpu, the boot messages).
 *
 * - /proc/cpuinfo (arch/x86/kernel/cpu/proc.c show_cpuinfo): the recorded text, CPU by CPU.
 * - /sys/devices/system/cpu (drivers/base/cpu.c, topology.c, cpuidle/sysfs.c): online, possible,
 *   present as cpulists, each CPU's topology masks, the cpuidle governor files (no driver).
 * - The kernel functions the CPU's features select, as 6.1's alternatives patch them at boot
 *   (arch/x86/include/asm/uaccess_64.h, page_64.h, arch/x86/lib/*.S, copy_mc.c) and the idle
 *   routine select_idle_routine() picks (arch/x86/kernel/process.c): the recorded flags have
 *   rep_good but neither erms nor fsrm, and the bugs line amd_e400.
 */
import { readDataText } from '../../kernel/data';

let sections: Map<string, string> | null = null;

/**
 * The recording's sections ("== NAME" lines, then the text up to the next one, each line ending in
 * a newline), cut out of the file's text where they lie (a boot reads a few of the 105).
 */
function recorded(): Map<string, string> {
  if (sections) return sections;
  sections = new Map();
  const text = '\n' + readDataText('cpu.txt');
  for (let at = text.indexOf('\n== '); at >= 0;) {
    const eol = text.indexOf('\n', at + 1);
    const next = eol < 0 ? -1 : text.indexOf('\n== ', eol);
    let body = eol < 0 ? '' : text.slice(eol + 1, next < 0 ? text.length : next + 1);
    if (body && !body.endsWith('\n')) body += '\n';
    sections.set(text.slice(at + 4, eol < 0 ? text.length : eol), body);
    at = next;
  }
  return sections;
}

/** One recorded section's text ('' when absent). */
export function recordedCpuSection(name: string): string {
  return recorded().get(name) ?? '';
}

/** The names of the recording's sections, in order. */
export function recordedCpuSectionNames(): string[] {
  return [...recorded().keys()];
}

/** /proc/cpuinfo's per-CPU blocks as recorded (each ends with its blank line). */
function cpuinfoBlocks(): string[] {
  return recordedCpuSection('/proc/cpuinfo').split(/(?<=\n\n)/).filter((b) => b.startsWith('processor'));
}

/**
 * /proc/cpuinfo of an n-CPU machine: the recorded block of each CPU; CPUs past the recorded ones
 * (a machine built with more CPUs) are the boot CPU's block with their own ids and the counts.
 */
export function cpuinfoText(n: number): string {
  const blocks = cpuinfoBlocks();
  let s = '';
  for (let i = 0; i < n; i++) {
    const b = blocks[i] ?? blocks[0];
    s += b.replace(/^(processor|core id|apicid|initial apicid)(\t+: ).*$/gm, `$1$2${i}`)
      .replace(/^(siblings|cpu cores)(\t+: ).*$/gm, `$1$2${n}`);
  }
  return s;
}

function field(name: string): string {
  const m = new RegExp(`^${name}\\t+: (.*)$`, 'm').exec(cpuinfoBlocks()[0] ?? '');
  return m ? m[1] : '';
}

/** The boot CPU's feature flags (/proc/cpuinfo "flags"). */
export function cpuFlags(): ReadonlySet<string> {
  return new Set(field('flags').split(' ').filter(Boolean));
}

/** The boot CPU's bugs (/proc/cpuinfo "bugs"). */
export function cpuBugs(): ReadonlySet<string> {
  return new Set(field('bugs').split(' ').filter(Boolean));
}

/** Which function each CPU-dependent call site runs, as the alternatives are patched. */
export interface CpuAlternatives {
  /** clear_user()'s ALTERNATIVE_3: inline rep stosb with FSRM (null), else the call. */
  readonly clearUser: string | null;
  /** clear_page()'s alternative_call_2 (clear_user_highpage, the anonymous-fault zeroing). */
  readonly clearPage: string;
  /** copy_user_generic()'s alternative_call_2 (copy_to_user/copy_from_user of large counts). */
  readonly copyUserGeneric: string;
  /** What copy_mc_to_kernel() calls (copy_mc_fragile only on Skylake-X, enabled by the MCE quirks). */
  readonly copyMcToKernel: string;
  /** memcpy()/memset(): __memcpy/__memset run their own rep movsq/stosq with REP_GOOD, else jump away. */
  readonly memcpy: string;
  readonly memset: string;
  /** x86_idle, chosen by select_idle_routine(). */
  readonly idle: string;
  /** The cpuidle driver (none: default_idle_call() -> arch_cpu_idle() -> x86_idle). */
  readonly cpuidleDriver: string;
}

/** The alternatives of a CPU with these flags and bugs, as Linux 6.1 patches them. */
export function alternativesFor(flags: ReadonlySet<string>, bugs: ReadonlySet<string>, vendor: string): CpuAlternatives {
  const repGood = flags.has('rep_good'), erms = flags.has('erms'), fsrm = flags.has('fsrm');
  return {
    clearUser: fsrm ? null : erms ? 'clear_user_erms' : repGood ? 'clear_user_rep_good' : 'clear_user_original',
    clearPage: erms ? 'clear_page_erms' : repGood ? 'clear_page_rep' : 'clear_page_orig',
    copyUserGeneric: erms ? 'copy_user_enhanced_fast_string' : repGood ? 'copy_user_generic_string' : 'copy_user_generic_unrolled',
    copyMcToKernel: erms ? 'copy_mc_enhanced_fast_string' : '__memcpy',
    memcpy: erms ? 'memcpy_erms' : repGood ? '__memcpy' : 'memcpy_orig',
    memset: erms ? 'memset_erms' : repGood ? '__memset' : 'memset_orig',
    idle: bugs.has('amd_e400') ? 'amd_e400_idle' : vendor === 'GenuineIntel' && flags.has('monitor') ? 'mwait_idle' : 'default_idle',
    cpuidleDriver: recordedCpuSection('/sys/devices/system/cpu/cpuidle/current_driver').trim() || 'none',
  };
}

/** The machine's alternatives (the recorded CPU's). */
export function cpuAlternatives(): CpuAlternatives {
  return alternativesFor(cpuFlags(), cpuBugs(), field('vendor_id'));
}

/** A cpulist ("0-3", "0", "") as drivers/base/cpu.c prints cpumasks with %*pbl. */
export function cpulist(ids: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < ids.length;) {
    let j = i;
    while (j + 1 < ids.length && ids[j + 1] === ids[j] + 1) j++;
    out.push(i === j ? `${ids[i]}` : `${ids[i]}-${ids[j]}`);
    i = j + 1;
  }
  return out.join(',');
}

/** A cpumask as %*pb prints it: hex words of 32 bits, comma-separated, the highest first. */
export function cpumask(ids: readonly number[], n: number): string {
  const words = Math.max(1, Math.ceil(n / 32));
  const w = new Array<number>(words).fill(0);
  for (const i of ids) w[i >> 5] = (w[i >> 5] | (1 << (i & 31))) >>> 0;
  return w.reverse().map((x, k) => (k === 0 ? x.toString(16) : x.toString(16).padStart(8, '0'))).join(',');
}

/** the recorded files sysCpuFiles takes as they are (cpuidle/..., vulnerabilities/...), relative to /sys/devices/system/cpu */
const RECORDED_SYS_CPU = /^\/sys\/devices\/system\/cpu\/((?:cpuidle|vulnerabilities)\/.*)$/;

/**
 * The files of /sys/devices/system/cpu of an n-CPU machine (one package, one die, one core per
 * CPU, no SMT: the recorded topology), path relative to the directory -> contents.
 */
export function sysCpuFiles(n: number): Map<string, string> {
  const all = Array.from({ length: n }, (_, i) => i);
  const files = new Map<string, string>();
  files.set('online', cpulist(all) + '\n');
  files.set('possible', cpulist(all) + '\n');
  files.set('present', cpulist(all) + '\n');
  for (const f of ['offline', 'kernel_max', 'isolated', 'nohz_full', 'modalias']) {
    files.set(f, recordedCpuSection(`/sys/devices/system/cpu/${f}`));
  }
  for (const i of all) {
    const t = `cpu${i}/topology/`;
    const self = [i];
    for (const k of ['cluster_cpus', 'core_cpus', 'thread_siblings']) {
      files.set(t + k, cpumask(self, n) + '\n');
      files.set(t + k + '_list', cpulist(self) + '\n');
    }
    for (const k of ['core_siblings', 'die_cpus', 'package_cpus']) {
      files.set(t + k, cpumask(all, n) + '\n');
      files.set(t + k + '_list', cpulist(all) + '\n');
    }
    files.set(t + 'cluster_id', '65535\n');
    files.set(t + 'core_id', `${i}\n`);
    files.set(t + 'die_id', '0\n');
    files.set(t + 'physical_package_id', '0\n');
    if (i > 0) files.set(`cpu${i}/online`, '1\n'); // the boot CPU cannot be offlined: no file
  }
  for (const [name, text] of recorded()) {
    const m = RECORDED_SYS_CPU.exec(name);
    if (m) files.set(m[1], text);
  }
  return files;
}

/**
 * How many inodes sysCpuFiles(n)'s tree has (its files and the directories that hold them) and how
 * many of the directories are at its top: what the boot reserves and links before the tree is made
 * (fs/procfs.ts populateSysCpu, which checks the two against the tree it makes).  Counted from the
 * shape sysCpuFiles gives: 8 files at the top, per CPU a directory, its topology directory with 16
 * files and (but cpu0) `online`; the recorded files and their directories.
 */
export function sysCpuShape(n: number): { inodes: number; topDirs: number } {
  let inodes = 8 + 18 * n + (n - 1), topDirs = n;
  const dirs = new Set<string>();
  for (const name of recorded().keys()) {
    const m = RECORDED_SYS_CPU.exec(name);
    if (!m) continue;
    inodes++;
    for (let k = m[1].indexOf('/'); k >= 0; k = m[1].indexOf('/', k + 1)) dirs.add(m[1].slice(0, k));
  }
  for (const d of dirs) if (!d.includes('/')) topDirs++;
  return { inodes: inodes + dirs.size, topDirs };
}
