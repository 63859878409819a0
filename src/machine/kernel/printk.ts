/**
 * The kernel log (kernel/printk): syslog(2)'s SYSLOG_ACTION_READ_ALL returns the ring buffer,
 * which holds the real guest's boot messages (its dmesg, recorded with the system snapshot in
 * data/recordings/system.json.gz: Debian's 6.1 kernel booting on the QEMU machine, ahci/sd
 * probing sda, ext4 mounting sda1, systemd starting the services, the swapfile added).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { CpuMachine } from '../include/cpu';
import { Semantics } from '../paths/semantics';
import { H_CONT } from '../paths/kexec';

let bootLog: string | null = null;
function recordedBootLog(): string {
  if (bootLog !== null) return bootLog;
  bootLog = '';
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    const f = path.join(dir, 'data', 'recordings', 'system.json.gz');
    if (fs.existsSync(f)) {
      try {
        const zlib = require('zlib') as typeof import('zlib'); // loaded when the log is read: at module load it cost every start ~25 ms (zlib and the stream library)
        const sys = JSON.parse(zlib.gunzipSync(fs.readFileSync(f)).toString('utf8')) as { dmesg?: string };
        bootLog = sys.dmesg ?? '';
      } catch { bootLog = ''; }
      break;
    }
    dir = path.dirname(dir);
  }
  return bootLog;
}

const EPERM = 1, EINVAL = 22;
export const printk = new Semantics<CpuMachine>('kernel/printk');
printk.syscall('syslog', (_m, _c, t, e) => {
  const type = Number(e.a[0]);
  if (type === 3 || type === 2 || type === 4) {
    if (t.euid !== 0) { e.ret = -EPERM; return H_CONT; }
    const text = recordedBootLog().slice(-Math.max(0, Number(e.a[2]) || 0));
    e.info = { text };
    e.ret = text.length;
    return H_CONT;
  }
  if (type === 10) { e.ret = recordedBootLog().length; return H_CONT; }
  e.ret = -EINVAL;
  return H_CONT;
});
