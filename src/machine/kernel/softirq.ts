/** Softirqs and interrupts (kernel/softirq.c, kernel/irq): which pending softirqs run, and the irq/softirq tracepoints' arguments. */
import type { CpuMachine } from '../include/cpu';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';

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
softirq.tpArgs('irq_handler_entry', (_m, _c, _t, e) => [e.irq ?? 16, { name: 'ahci[0000:00:1f.2]' }]);
softirq.tpArgs('irq_handler_exit', (_m, _c, _t, e) => [e.irq ?? 16, { name: 'ahci[0000:00:1f.2]' }, 1]);
