/**
 * Where a device interrupt is delivered (kernel/irq/manage.c: an IRQ's effective affinity, which the
 * IO-APIC is programmed with): each legacy IO-APIC line goes to one CPU. The routes are the recorded
 * guest's: its /proc/interrupts (data/recordings/system.json.gz `interrupts`) counts IRQ 1 (i8042) on
 * CPU3 only, 4 (ttyS0) on CPU1, 8 (rtc0) on CPU0, 12 (i8042) on CPU2; and every serial interrupt in
 * the workloads' recordings is taken on CPU1 (ps, find and ls-root ran there and show them nested in
 * their writes; echo on CPU0, uname on CPU2, cat on CPU3 write to the same port and show none).
 * The AHCI controller's MSI (IRQ 24) has one CPU too: the guest's /proc/interrupts counts it on CPU2 only
 * (`24: 0 0 858 0 PCI-MSI 65536-edge ahci[0000:00:04.0]`), and the recordings' workloads see its
 * interrupt (irq_handler_entry irq=24, block_rq_complete) only while they run on CPU2: dd-write's events
 * run (dd on CPU2) 30, pagecache-miss's 3 in its stretch on CPU2 and none on CPU3, swap's (dd on CPU3)
 * none for its 262 requests; none has an IPI to complete a request on its submitter's CPU (the guest's
 * CPUs share their cache: blk_mq_complete_need_ipi is false, and the single hardware queue's
 * blk_mq_raise_softirq runs the completion in BLOCK_SOFTIRQ on the interrupted CPU).
 */
import type { CpuMachine, Cpu } from '../include/cpu';

/**
 * The recorded guest's AHCI controller (PCI 0000:00:04.0): its MSI is Linux IRQ 24 (/proc/interrupts
 * `24: PCI-MSI 65536-edge ahci[0000:00:04.0]`; the recordings' irq_handler_entry `irq=24`).
 */
export const AHCI_IRQ = 24;

/** Each device IRQ's CPU (its effective affinity): the IO-APIC lines' and the AHCI MSI's. */
export const IRQ_ROUTES: Readonly<Record<number, number>> = { 1: 3, 4: 1, 8: 0, 12: 2, [AHCI_IRQ]: 2 };

/** The name of an IRQ's action (struct irqaction.name: request_irq's devname, /proc/interrupts' last column). */
export const IRQ_NAMES: Readonly<Record<number, string>> = { 1: 'i8042', 4: 'ttyS0', 8: 'rtc0', 9: 'acpi', 12: 'i8042', [AHCI_IRQ]: 'ahci[0000:00:04.0]' };

/** The CPU that takes IRQ `irq` (CPU0 for a line with no route; a machine with fewer CPUs wraps). */
export function irqCpu(m: CpuMachine, irq: number): Cpu {
  return m.cpus[(IRQ_ROUTES[irq] ?? 0) % m.cpus.length];
}
