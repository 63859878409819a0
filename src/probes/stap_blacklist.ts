/**
 * The translator's own blacklist of kernel functions (stap 4.8's dwarf_query::build_blacklist):
 * functions that probes must not touch (lock primitives, atomics, the NMI/trap paths, `current`
 * accessors, preempt counting, paravirt ops ...) are skipped when a `kernel.function` /
 * `module().function` / `.callee` pattern resolves, by name or by declaration file, so
 * `kernel.function("_raw_spin_lock")` has no match and `.callees` does not list `get_current`.
 * (Distinct from the kernel's kprobe blacklist in src/kernel/kallsyms.ts, which stap consults too.)
 * Names checked with Debian's stap 4.8 and the -dbg vmlinux (real-stap -l): _raw_spin_lock,
 * rcu_read_lock, atomic_inc, preempt_count_add, get_current, current_time, __switch_to, do_softirq
 * list nothing; native_irq_disable (asm/irqflags.h) is listed.
 */
const FUNCTIONS = [
  'atomic_notifier_call_chain', 'default_do_nmi', '__die', 'die_nmi', 'do_debug', 'do_general_protection',
  'do_int3', 'do_IRQ', 'do_page_fault', 'do_sparc64_fault', 'do_trap', 'dummy_nmi_callback',
  'flush_icache_range', 'ia64_bad_break', 'ia64_do_page_fault', 'ia64_fault', 'io_check_error',
  'mem_parity_error', 'nmi_watchdog_tick', 'notifier_call_chain', 'oops_begin', 'oops_end',
  'program_check_exception', 'single_step_exception', 'sync_regs', 'unhandled_fault', 'unknown_nmi_error',
  'xen_[gs]et_debugreg', 'xen_irq_.*', 'xen_.*_fl_direct.*', 'check_events', 'xen_adjust_exception_frame',
  'xen_iret', 'xen_sysexit', 'xen_sysret32', 'xen_sysret64',
  // locks
  '.*raw_.*_lock.*', '.*raw_.*_unlock.*', '.*raw_.*_trylock.*', '.*read_lock.*', '.*read_unlock.*',
  '.*read_trylock.*', '.*write_lock.*', '.*write_unlock.*', '.*write_trylock.*', '.*write_seqlock.*',
  '.*write_sequnlock.*', '.*spin_lock.*', '.*spin_unlock.*', '.*spin_trylock.*', '.*spin_is_locked.*',
  'rwsem_.*', '.*mutex_.*lock.*', 'raw_.*',
  // atomics and other problem cases
  'atomic_.*', 'atomic64_.*', 'get_bh', 'put_bh',
  '.*apic.*', '.*APIC.*', '.*softirq.*', '.*IRQ.*', '.*_intr.*', '__delay', '.*kernel_text.*',
  'get_current', 'current_.*', '.*exception_tables.*', '.*setup_rt_frame.*',
  '.*preempt_count.*', 'preempt_schedule',
  '__switch_to',
];

const FILES = [
  'kernel/kprobes\\.c', 'arch/.*/kernel/kprobes\\.c', '.*/include/asm/io\\.h', '.*/include/asm/io_64\\.h',
  '.*/include/asm/bitops\\.h', 'drivers/ide/ide-iops\\.c', 'arch/.*/kernel/paravirt\\.c', '.*/include/asm/paravirt\\.h',
];

/**
 * `^(a|b|...)$` over the list, with each alternative's leading / trailing `.*` turned into an
 * unanchored end instead (the same set of names, which hold no line breaks): V8 otherwise
 * backtracks through every `.*X.*` alternative at each name (~8x slower over a `*` wildcard's
 * 50 000 functions).
 */
function wholeMatch(res: string[]): RegExp {
  return new RegExp(res.map((r) => {
    const a = (r.startsWith('.*') ? r.slice(2) : '^' + r);
    const b = a.endsWith('.*') && !a.endsWith('\\.*') ? a.slice(0, -2) : a + '$';
    return `(?:${b})`;
  }).join('|'));
}

const FN_RE = wholeMatch(FUNCTIONS);
const FILE_RE = wholeMatch(FILES);

/** Is a function (DWARF name, declaration file) one stap's translator refuses to probe? */
export function stapBlacklisted(name: string, file: string | undefined): boolean {
  return FN_RE.test(name) || (file !== undefined && FILE_RE.test(file));
}
