/**
 * The disk behind /dev/sda (an AHCI SATA disk: drivers/ata/ahci.c, drivers/scsi/sd.c): requests
 * the block layer issues are served in order with a latency + bandwidth model (sequential
 * requests are cheaper), and each completion raises the disk interrupt (the `blk_irq` path) on the CPU
 * its MSI is routed to (kernel/irq.ts irqCpu), whichever CPU submitted the request.
 */
import type { CpuMachine } from '../include/cpu';
import type { BlkRequest } from '../include/blkdev';
import type { BlockDevice } from '../block/core';
import { newEnv } from '../paths/kexec';
import { AHCI_IRQ, irqCpu } from '../kernel/irq';

export class Disk implements BlockDevice {
  busyUntil = 0;
  /** device latency and bandwidth */
  latencyNs = 90000;
  bytesPerNs = 0.5; // 500 MB/s
  readonly stats = { reads: 0, writes: 0, sectorsRead: 0, sectorsWritten: 0, inflight: 0 };
  constructor(private m: CpuMachine) {}

  /** The driver issues request r to the device (ahci_qc_issue). */
  issue(r: BlkRequest): void {
    const start = Math.max(this.m.now, this.busyUntil);
    const seq = this.lastSector === r.sector ? 0.25 : 1;
    const done = start + this.latencyNs * seq + r.bytes / this.bytesPerNs;
    this.busyUntil = done;
    this.lastSector = r.sector + r.bytes / 512;
    this.stats.inflight++;
    if (r.write) { this.stats.writes++; this.stats.sectorsWritten += r.bytes / 512; } else { this.stats.reads++; this.stats.sectorsRead += r.bytes / 512; }
    this.m.schedule(done, () => {
      this.stats.inflight--;
      this.m.irq(irqCpu(this.m, AHCI_IRQ), 'blk_irq', newEnv('blk_irq', { req: r, irq: AHCI_IRQ }));
    });
  }
  private lastSector = -1;
}
