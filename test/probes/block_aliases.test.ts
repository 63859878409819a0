/**
 * The block and SCSI tapset aliases (ioblock.*, ioblock_trace.*, ioscheduler*.*, scsi.*) with the
 * values SystemTap 4.8's tapset computes on Debian's 6.1 (issue 16): what each variable reads
 * (stdlib/ioblock.stp, ioscheduler.stp, scsi.stp say why), over the machine's struct bio, request,
 * request_queue, scsi_cmnd of sda (0:0:0:0, mq-deadline; the recordings' scsi_dispatch_cmd_start
 * events print "host_no=0 channel=0 id=0 lun=0"), and the semantic errors 4.8 gives on 6.1 for the
 * members 6.1 lacks (bi_phys_segments, scsi_cmnd's request, block_bio_queue's $q).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'main.js');
function stap(...args: string[]) {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'latin1', timeout: 90000 });
  return { out: r.stdout, err: r.stderr, status: r.status };
}
const counts = (out: string): Map<string, number> => {
  const m = new Map<string, number>();
  for (const l of out.split('\n').filter(Boolean)) m.set(l, (m.get(l) ?? 0) + 1);
  return m;
};

describe('block and SCSI aliases: stap 4.8\'s variables and values on 6.1', function () {
  this.timeout(120000);

  it('ioblock.request is submit_bio_noacct (one hit per bio) with 4.8\'s values; ioblock.end the same bio consumed', () => {
    const r = stap('--seed', '1', '-c', 'dd if=/dev/zero of=/root/f bs=4k count=8 oflag=direct', '-e', `
probe ioblock.request {
  if (execname() != "dd") next
  printf("req %s %s size=%d rw=%d opf=%#x flags=%d ino=%d vcnt=%d idx=%d hw=%d bdev=%d contains=%d start=%d sector_ok=%d\\n",
    name, devname, size, rw, opf, flags, ino, vcnt, idx, hw_segments, bdev == $bio->bi_bdev, bdev_contains, p_start_sect,
    sector == $bio->bi_iter->bi_sector && sector > 0)
}
probe ioblock.end { if (execname() == "dd" || devname == "sda1") printf("end %s size=%d bytes_done=%d error=%d\\n", name, size, bytes_done, error) }`);
    expect(r.err).not.to.match(/error|WARNING/i);
    const c = counts(r.out.split('\n').filter((l) => /^(req|end) /.test(l)).join('\n'));
    // dd's 8 direct writes, REQ_OP_WRITE|REQ_SYNC|REQ_IDLE, from a user buffer (an anonymous page: ino -1),
    // 6.1's bio has no bi_hw_segments, no bd_contains, and 4.8's partition start reads bi_dev/bi_disk: 0
    expect(c.get('req ioblock.request sda1 size=4096 rw=1 opf=0x8801 flags=0 ino=-1 vcnt=1 idx=0 hw=0 bdev=1 contains=0 start=0 sector_ok=1')).to.equal(8);
    expect(c.size).to.equal(2);
    // bio_endio after blk_update_request consumed the iterator
    expect(c.get('end ioblock.end size=0 bytes_done=0 error=0')).to.equal(8);
  });

  it('ino is the inode of the file a bio writes back, the block device\'s (MKDEV(8,1)) for the journal', () => {
    const r = stap('--seed', '1', '-c', 'sh -c "echo hi > /root/x; stat -c ino=%i /root/x; sync"', '-e', `
probe ioblock.request, ioblock_trace.request { if (execname() != "sh") printf("%s %s ino=%d rw=%d\\n", name, execname() =~ "^kworker" ? "kworker" : execname(), ino, rw) }`);
    expect(r.err).not.to.match(/error|WARNING/i);
    const ino = /^ino=(\d+)$/m.exec(r.out)![1];
    expect(r.out).to.contain(`ioblock.request kworker ino=${ino} rw=1\n`);
    expect(r.out).to.contain(`ioblock_trace.request kworker ino=${ino} rw=1\n`);
    expect(r.out).to.match(/^ioblock.request jbd2\/sda1-8 ino=8388609 rw=1$/m);
    expect(r.out).not.to.match(/ino=-1/);
  });

  it('the members 6.1 lacks are semantic errors only when a script reads them', () => {
    const e1 = stap('-p2', '-e', 'probe ioblock.request { println(phys_segments) }');
    expect(e1.err).to.contain("semantic error: unable to find member 'bi_phys_segments' for struct bio");
    const e2 = stap('-p2', '-e', 'probe ioblock_trace.request { println(q) }');
    expect(e2.err).to.contain("semantic error: unable to find tracepoint variable '$q' (alternatives: $bio)");
    const e3 = stap('-p2', '-e', 'probe scsi.iodone { println(req_addr) }');
    expect(e3.err).to.contain("semantic error: unable to find member 'request' for struct scsi_cmnd");
    // block_bio_complete has its queue; scsi.iodone's unused scsi_timer_pending($cmd) is elided
    // with its function (whose @cast reads scsi_cmnd's request), as real-stap elides `f($cmd)`
    for (const s of ['probe ioblock_trace.end { println(q) }', 'probe scsi.iodone { println(host_no) }', 'probe ioblock.request, ioblock.end { println(devname) }']) {
      const ok = stap('-p2', '-e', s);
      expect(ok.status, s + ok.err).to.equal(0);
    }
  });

  it('ioscheduler: the mq-deadline elevator, the request\'s queue and cmd_flags, disk_major/minor -1 (no rq_disk)', () => {
    const r = stap('--seed', '1', '-c', 'dd if=/dev/zero of=/root/f bs=4k count=2 oflag=direct', '-e', `
probe ioscheduler.elv_add_request, ioscheduler_trace.elv_issue_request, ioscheduler_trace.elv_completed_request {
  printf("%s %s %s q=%d disk=%d,%d flags=%#x rq=%d\\n", pn(), name, elevator_name, q == $rq->q && q != 0, disk_major, disk_minor, rq_flags, rq == $rq)
}
probe ioscheduler_trace.plug { printf("plug %d\\n", rq_queue == @cast(rq_queue, "request_queue", "kernel")->disk->queue) }`);
    expect(r.err).not.to.match(/error|WARNING/i);
    const c = counts(r.out);
    expect(c.get('ioscheduler.elv_add_request elv_add_request mq-deadline q=1 disk=-1,-1 flags=0x8801 rq=1')).to.equal(2);
    expect(c.get('ioscheduler_trace.elv_issue_request elv_issue_request mq-deadline q=1 disk=-1,-1 flags=0x8801 rq=1')).to.equal(2);
    expect(c.get('ioscheduler_trace.elv_completed_request elv_completed_request mq-deadline q=1 disk=-1,-1 flags=0x8801 rq=1')).to.be.at.least(2);
    expect(r.out).to.match(/^plug /m);
  });

  it('the aliases of functions and tracepoints 6.1 lacks match nothing', () => {
    for (const a of ['ioscheduler.elv_next_request', 'ioscheduler.elv_completed_request', 'ioscheduler.elv_add_request.kp',
      'ioscheduler_trace.elv_abort_request', 'ioscheduler_trace.unplug_io', 'ioscheduler_trace.unplug_timer',
      'scsi.ioentry', 'scsi.ioentry.sd', 'scsi.ioexecute']) {
      const r = stap('-p2', '-e', `probe ${a} {}`);
      expect(r.err, a).to.contain('semantic error: no match');
    }
  });

  it('scsi.iodone / scsi.iocompleted: sda\'s device 0:0:0:0, RUNNING, the direction of the command, goodbytes', () => {
    const r = stap('--seed', '1', '-c', 'dd if=/dev/zero of=/root/f bs=4k count=2 oflag=direct', '-e', `
probe scsi.iodone { printf("done %d:%d:%d:%d %s %s\\n", host_no, channel, dev_id, lun, device_state_str, data_direction_str) }
probe scsi.iocompleted { printf("completed %d:%d:%d:%d %d %s %d\\n", host_no, channel, dev_id, lun, device_state, data_direction_str, goodbytes) }
probe scsi.iodispatching ? { println("dispatching") }`);
    expect(r.err).not.to.match(/error|WARNING/i);
    const c = counts(r.out);
    expect(c.get('done 0:0:0:0 RUNNING TO_DEVICE')).to.equal(2);
    expect(c.get('completed 0:0:0:0 2 TO_DEVICE 4096')).to.equal(2);
  });

  it('describe_device_state / describe_data_direction name what 4.8\'s do ("[INVALID]" otherwise)', () => {
    const r = stap('-e', 'probe begin { for (i = 0; i <= 10; i++) printf("%s|", describe_device_state(i)) println("") for (i = 0; i <= 4; i++) printf("%s|", describe_data_direction(i)) println("") exit() }');
    expect(r.out).to.equal('[INVALID]|CREATED|RUNNING|CANCEL|DEL|QUIESCE|OFFLINE|[INVALID]|BLOCK|CREATED_BLOCK|[INVALID]|\n'
      + 'BIDIRECTIONAL|TO_DEVICE|FROM_DEVICE|NONE|[INVALID]|\n');
  });
});
