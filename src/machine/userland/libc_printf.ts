/**
 * glibc printf's floating-point conversions (%e, %f, %g and their upper-case forms, inf/nan), shared by
 * the programs that print numbers the C way: dash's printf builtin, awk's printf and number-to-string
 * conversions, dd's transfer statistics.
 */

export function nonFinite(n: number, upper: boolean): string {
  const s = Number.isNaN(n) ? (Object.is(n, NaN) && 1 / n < 0 ? '-nan' : 'nan') : n < 0 ? '-inf' : 'inf';
  return upper ? s.toUpperCase() : s;
}

/** C's %e digits: mantissa with `prec` decimals and a two-digit (at least) exponent */
export function expForm(n: number, prec: number, upper: boolean): string {
  const s = n.toExponential(Math.min(prec, 100));
  const m = /^(-?[0-9.]+)e([+-])([0-9]+)$/.exec(s)!;
  const e = m[3].length < 2 ? '0' + m[3] : m[3];
  return `${m[1]}${upper ? 'E' : 'e'}${m[2]}${e}`;
}
/** C's %f digits, exact beyond toFixed's range */
export function fixedForm(n: number, prec: number): string {
  if (Math.abs(n) < 1e21) return n.toFixed(Math.min(prec, 100));
  // beyond toFixed's range: the exact integer digits
  const int = BigInt(Math.trunc(n)).toString();
  return prec > 0 ? `${int}.${'0'.repeat(prec)}` : int;
}
/** C's %g: `precIn` significant digits, the %e form when the exponent is below -4 or not below the precision, trailing zeros dropped unless `alt` (the # flag) */
export function gForm(n: number, precIn: number, upper: boolean, alt: boolean): string {
  const p = precIn === 0 ? 1 : precIn;
  if (n === 0) return alt ? '0.' + '0'.repeat(p - 1) : '0';
  const x = Math.floor(Math.log10(Math.abs(Number(n.toExponential(p - 1)))));
  let s = p > x && x >= -4 ? fixedForm(n, p - 1 - x) : expForm(n, p - 1, upper);
  if (!alt) {
    s = s.replace(/(\.[0-9]*?)0+(?=$|[eE])/, '$1').replace(/\.(?=$|[eE])/, '');
  }
  return s;
}
