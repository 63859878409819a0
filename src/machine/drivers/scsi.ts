/**
 * The SCSI mid layer's objects of the disk behind /dev/sda (drivers/scsi/scsi_lib.c, sd.c over
 * libata's AHCI host): the `struct scsi_cmnd` of each block request, the `struct scsi_device` and
 * `struct Scsi_Host` it is for, as scsi_queue_rq, scsi_done (scsi_dispatch_cmd_start/_done) and
 * scsi_io_completion see them. The recordings' scsi_dispatch_cmd_start events print the device
 * "host_no=0 channel=0 id=0 lun=0" (sda is 0:0:0:0 on ata1) and "cmnd=(WRITE_10 lba=... txlen=8".
 */
import type { BlkRequest } from '../include/blkdev';
import { Semantics } from '../paths/semantics';
import { kmem } from '../../kernel/memory';
import { sdaQueue, type BlockMachine } from '../block/core';

/** include/linux/dma-direction.h */
const DMA_TO_DEVICE = 1, DMA_FROM_DEVICE = 2, DMA_NONE = 3;
/** include/scsi/scsi_device.h enum scsi_device_state */
const SDEV_RUNNING = 2;

let sdev = 0;
/** sda's scsi_device 0:0:0:0 on Scsi_Host 0, running, with the disk's request queue. */
function scsiDevice(): number {
  if (sdev) return sdev;
  const D = 'struct scsi_device', H = 'struct Scsi_Host';
  const host = kmem.allocStruct(H);
  kmem.setField(host, H, 'host_no', 0);
  sdev = kmem.allocStruct(D);
  kmem.setField(sdev, D, 'host', host);
  kmem.setField(sdev, D, 'request_queue', sdaQueue(kmem));
  kmem.setField(sdev, D, 'sdev_state', SDEV_RUNNING);
  return sdev;
}

const cmnds = new WeakMap<BlkRequest, number>();
/**
 * The `struct scsi_cmnd *` of block request `r` (the request's PDU): its device, the DMA
 * direction (to the device for a write, from it for a read, none for a cache flush) and the
 * transfer length (sdb.length). (Not its CDB yet: the scsi_dispatch_cmd_* events would print its
 * raw bytes under the opcode field the event assignment does not fill.)
 */
export function scsiCmnd(r: BlkRequest | undefined): number {
  if (!r) return 0;
  const T = 'struct scsi_cmnd';
  return kmem.structFor(cmnds, r, T, (a) => {
    kmem.setField(a, T, 'device', scsiDevice());
    kmem.setField(a, T, 'sc_data_direction', r.flush || !r.bytes ? DMA_NONE : r.write ? DMA_TO_DEVICE : DMA_FROM_DEVICE);
    kmem.setField(a, T, 'sdb.length', r.bytes);
  });
}

export const scsi = new Semantics<BlockMachine>('drivers/scsi');
scsi.structArg('scsi_cmnd', () => (_m, _c, _t, e) => scsiCmnd(e.req as BlkRequest | undefined));
// scsi_io_completion(cmd, good_bytes): sd_done found the whole transfer good
scsi.fnArgs('scsi_io_completion', (_m, _c, _t, e) => {
  const r = e.req as BlkRequest | undefined;
  return [scsiCmnd(r), r && !r.flush ? r.bytes : 0];
});
