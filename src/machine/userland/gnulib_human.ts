/**
 * gnulib's human_readable with autoscaling, as coreutils prints sizes (ls/du/df -h, dd's statistics):
 * `n` divided by `base` until below it, one decimal below 10 and a whole number above, rounded by
 * `round` (ls/du/df -h round up, dd to the nearest), and a value that rounds up to the base moves to
 * the next unit (Debian 12's ls -lh of a 1048000-byte file: "1.0M", not "1024K"; dd of 999999 bytes:
 * "1.0 MB, 977 KiB").  Returns the digits and the unit's index from 0 (the first multiple), -1 when
 * `n` is below `base`; `maxUnit` is the largest index.
 */
export function humanScale(n: number, base: number, round: (x: number) => number, maxUnit: number): { digits: string; unit: number } {
  let v = n, unit = -1;
  while (v >= base && unit < maxUnit) { v /= base; unit++; }
  if (unit < 0) return { digits: String(n), unit };
  if (v < 10) {
    const tenths = round(v * 10);
    if (tenths < 100) return { digits: (tenths / 10).toFixed(1), unit };
  }
  const r = round(v);
  return r >= base && unit < maxUnit ? { digits: '1.0', unit: unit + 1 } : { digits: String(r), unit };
}
