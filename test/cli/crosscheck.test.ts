/**
 * Issue 17's cross-check: for one workload (seed 002's ftrace-me running dd: 16 reads of 64 KiB)
 * the function profiler's hit count of vfs_read, a stap kernel.function("vfs_read") count and the
 * function tracer's vfs_read lines agree, all three taken in one `tapsim shell` session: the
 * tracer and the profiler share the machine's ftrace ops (set_ftrace_pid on the workload) and
 * stap's probe is a kprobe on the same mcount site (kprobes on ftrace).  19 is dd's count=16 plus
 * ld.so's three reads of libc.so.6's ELF header (read 832, pread64 784 twice, as strace of Debian 12's dd shows).
 */
import { expect } from 'chai';
import { spawnSync } from 'child_process';
import * as path from 'path';

const cli = path.join(__dirname, '..', '..', 'src', 'cli', 'tapsim_main.js');

const SCRIPT = `
cd /sys/kernel/tracing
cat > /root/ftrace-me <<'SCRIPT'
#!/bin/sh
echo 0 > /sys/kernel/tracing/function_profile_enabled
echo 1 > /sys/kernel/tracing/function_profile_enabled
echo $$ > /sys/kernel/tracing/set_ftrace_pid
echo function > /sys/kernel/tracing/current_tracer
exec $*
SCRIPT
echo vfs_read > set_ftrace_filter
stap -e 'global n
probe kernel.function("vfs_read") { if (execname() == "dd") n++ }
probe end { printf("stap: %d\\n", n) }' -c 'sh /root/ftrace-me dd if=/root/YEYEYE.txt of=/dev/null bs=64k count=16' 2>/dev/null
echo 0 > function_profile_enabled
echo 0 > tracing_on
awk '/ vfs_read / { print "profiler:", $2 }' trace_stat/function*
echo "tracer: $(grep -c 'vfs_read <-' trace)"
`;

describe('cross-check: function profiler, stap and the function tracer count the same vfs_read calls', function () {
  this.timeout(60000);
  it('agree on seed 002\'s dd workload', () => {
    const r = spawnSync(process.execPath, [cli, 'shell', '--function-profiler', '-c', SCRIPT], { encoding: 'latin1' });
    expect(r.status, r.stderr).to.equal(0);
    const count = (what: string) => [...r.stdout.matchAll(new RegExp(`^${what}: (\\d+)$`, 'gm'))].reduce((a, m) => a + Number(m[1]), 0);
    const got = { stap: count('stap'), profiler: count('profiler'), tracer: count('tracer') };
    expect(got).to.deep.equal({ stap: 19, profiler: 19, tracer: 19 });
  });
});
