/**
 * Where a device interrupt is delivered (kernel/irq/manage.c: an IRQ's effective affinity, which the
 * IO-APIC is programmed with): each legacy IO-APIC line goes to one CPU. The routes are the recorded
 * guest's: its /proc/interrupts (data/recordings/system.json.gz `interrupts`) counts IRQ 1 (i8042) on
 * CPU3 only, 4 (ttyS0) on CPU1, 8 (rtc0) on CPU0, 12 (i8042) on CPU2; and every serial interrupt in
 * the workloads' recordings is taken on CPU1 (ps, find and ls-root ran there and show them nested in
 * their writes; echo on CPU0, uname on CPU2, cat on CPU3 write to the same port and show none).
 */
import type { CpuMachine, Cpu } from '../include/cpu';

export const IOAPIC_ROUTES: Readonly<Record<number, number>> = { 1: 3, 4: 1, 8: 0, 12: 2 };

/**
 * The recorded guest's AHCI controller (PCI 0000:00:04.0): its MSI is Linux IRQ 24 (/proc/interrupts
 * `24: PCI-MSI 65536-edge ahci[0000:00:04.0]`; the recordings' irq_handler_entry `irq=24`).
 */
export const AHCI_IRQ = 24;

/**
 * The CPU each MSI is delivered to: its vector's effective affinity (arch/x86/kernel/apic/vector.c: a
 * non-managed MSI gets one vector on one CPU, the least loaded of its affinity mask at request time,
 * with no irqbalance on the guest to move it later). The recorded guest's /proc/interrupts counts all of
 * IRQ 24's 858 interrupts on CPU2, and every AHCI irq_handler_entry of the recordings' events runs is
 * on CPU2, whichever CPU submitted the request (dd-direct-write's dd on CPU1 and pagecache-miss's on CPU3
 * take none; their graph runs, on CPU2, take them all).
 */
export const MSI_ROUTES: Readonly<Record<number, number>> = { [AHCI_IRQ]: 2 };

/** The name of an IRQ's action (struct irqaction.name: request_irq's devname, /proc/interrupts' last column). */
export const IRQ_NAMES: Readonly<Record<number, string>> = { 1: 'i8042', 4: 'ttyS0', 8: 'rtc0', 9: 'acpi', 12: 'i8042', [AHCI_IRQ]: 'ahci[0000:00:04.0]' };

/** The CPU that takes IRQ `irq` (CPU0 for a line with no route; a machine with fewer CPUs wraps). */
export function irqCpu(m: CpuMachine, irq: number): Cpu {
  return m.cpus[(IOAPIC_ROUTES[irq] ?? MSI_ROUTES[irq] ?? 0) % m.cpus.length];
}
