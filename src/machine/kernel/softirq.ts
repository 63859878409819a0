/** Softirqs and interrupts (kernel/softirq.c, kernel/irq): which pending softirqs run, and the irq/softirq tracepoints' arguments. */
import type { CpuMachine } from '../include/cpu';
import { Semantics } from '../paths/semantics';
import type { Env } from '../include/kstack';
import { H_CONT } from '../paths/kexec';
import { AHCI_IRQ, IRQ_NAMES } from './irq';

/** include/linux/irqreturn.h */
const IRQ_NONE = 0, IRQ_HANDLED = 1;

export const softirq = new Semantics<CpuMachine>('kernel/softirq');

softirq.hook('balance', () => H_CONT);
softirq.cond('softirq_timer', (_m, _c, _t, e) => ((e.pending as number) & (1 << 1)) !== 0);
softirq.cond('softirq_block', (_m, _c, _t, e) => ((e.pending as number) & (1 << 4)) !== 0);
softirq.cond('softirq_net_rx', (_m, _c, _t, e) => ((e.pending as number) & (1 << 3)) !== 0);
softirq.cond('softirq_sched', (_m, _c, _t, e) => ((e.pending as number) & (1 << 7)) !== 0);
softirq.cond('softirq_rcu', (_m, _c, _t, e) => ((e.pending as number) & (1 << 9)) !== 0);
softirq.tpArgs('softirq_entry', (_m, _c, _t, e) => [e.vec ?? 1]);
softirq.tpArgs('softirq_exit', (_m, _c, _t, e) => [e.vec ?? 1]);
// the vector raised: the path's (a tick's TIMER/SCHED/RCU, net/core.ts's NET_RX), else TIMER_SOFTIRQ
softirq.tpArgs('softirq_raise', (_m, _c, _t, e) => [(e.raiseVec as number | undefined) ?? e.vec ?? 1]);
/** __handle_irq_event_percpu's action: the IRQ's number (the disk's when the path names none) and its irqaction's name */
const irqAction = (e: Env): [number, { name: string }] => {
  const irq = (e.irq as number | undefined) ?? AHCI_IRQ;
  return [irq, { name: IRQ_NAMES[irq] ?? '' }];
};
softirq.tpArgs('irq_handler_entry', (_m, _c, _t, e) => irqAction(e));
/**
 * The handler's irqreturn_t: IRQ_HANDLED (1), IRQ_NONE (0) from the serial port's interrupt that finds
 * nothing to send (serial8250_handle_irq with UART_IIR_NO_INT: the recordings' `ret=unhandled` after each drain).
 */
softirq.tpArgs('irq_handler_exit', (_m, _c, _t, e) => [...irqAction(e), e.bytes === 0 ? IRQ_NONE : IRQ_HANDLED]);
