/**
 * Host calibration: CPU ns per iteration of a trivial integer loop (about 0.3 ns on an idle
 * modern core; more when the host is shared). CPU time is inflated on a shared host too: compare
 * figures of runs made at a similar calibration, or divide the host factor out with it.
 */
export function calibrate(): number {
  let best = Infinity;
  for (let r = 0; r < 5; r++) {
    const u0 = process.cpuUsage();
    let s = 0;
    for (let i = 0; i < 2e7; i++) s = (s + i) | 0;
    const u = process.cpuUsage(u0);
    if (s === 1) console.log(s);
    best = Math.min(best, ((u.user + u.system) * 1000) / 2e7);
  }
  return +best.toFixed(2);
}

export const CALIBRATION_LABEL = 'host calibration: CPU ns per trivial loop iteration (~0.3 on an idle core)';
