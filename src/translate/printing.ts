/**
 * Pass 3, the print family: print/println/printd/printdln, printf and their s* forms, and
 * histogram printing.
 *
 * Bounds are stap's (translate.cxx's stp_printf_N / stp_sprintf_N over runtime/vsprintf.c):
 * one print statement writes at most STP_BUFFER_SIZE (8192) bytes, an sprintf result holds at
 * most MAXSTRINGLEN-1 bytes up to its first NUL, and every width and precision is a C int
 * clamped to the room left in that buffer.  The generated code formats each field directly
 * with the widths clamped to the buffer size (so no field is ever larger than the buffer);
 * only when that text does not fit does it call the runtime's exact emulation (fx), which
 * clamps to the room left field by field as stap does.
 */
import type * as A from '../ast';
import { parseFormat, FormatConv, FormatPart, STP_BUFFER_SIZE, PAGE_SIZE, clampInt } from '../runtime/format';
import { compatBefore } from '../parse/version';
import { jsStr, jsInt } from './emit';
import { ExprGen } from './exprs';

export abstract class PrintGen extends ExprGen {
  /** Expressions a stats value may not be printed through. */
  private statsArg(a: A.Expr): boolean {
    if (a.type === 'stats' || (a.k === 'sym' && a.ref?.type === 'stats')) {
      this.err('print format actual argument evaluation type unsupported', a.tok);
      return true;
    }
    return false;
  }

  /** %s reads at most STP_BUFFER_SIZE bytes of a string (matters when MAXSTRINGLEN is larger). */
  private get longStrings(): boolean {
    return this.limits.maxStringLen > STP_BUFFER_SIZE + 1;
  }

  private printArg(a: A.Expr): string {
    if (this.statsArg(a)) return '""';
    if (a.k === 'str') return this.strLit(a.value);
    const v = this.ex(a);
    if (a.type !== 'string') return `("" + ${v})`;
    return this.longStrings ? `fS(${v}, "", -1, -1)` : v;
  }

  protected print(e: A.Print): string {
    const toStr = e.name.startsWith('s');
    let text: string;
    if (e.hist) {
      const hr = this.histIndex(e.hist);
      if (!hr) {
        this.err('Invalid indexing of histogram', e.hist.tok);
        return '0';
      }
      const stat = this.statExpr(e.hist.operand);
      // (an empty aggregate is reported at the print function: real-stap -p3 sets last_stmt to it)
      text = `(L = ${this.loc(e.tok)}, ${stat}.histText(${hr.h}, ${jsInt(this.limits.histElision)}))`;
      // (the runtime prints a histogram line by line: not bounded by one print buffer)
      return toStr ? `T(${text})` : `(outH(${text}), 0)`;
    }
    // stap's translator (pass 3, not the parser): at most 32 values per print
    if (e.args.length > 32) {
      this.err(`too many arguments to print (${e.args.length})`, e.tok);
      return '""';
    }
    if (e.name === 'printf' || e.name === 'sprintf') return this.formatted(e, toStr);
    const nl = e.name.endsWith('ln');
    const isD = e.name === 'printd' || e.name === 'printdln' || e.name === 'sprintd' || e.name === 'sprintdln';
    const parts = e.args.map((a) => this.printArg(a));
    let joined: string;
    if (isD) {
      const dl = this.strLit(e.delim ?? '');
      joined = parts.join(` + ${dl} + `);
    } else joined = parts.join(' + ');
    if (nl) joined = joined ? `${joined} + "\\n"` : '"\\n"';
    if (!joined) joined = '""';
    text = joined;
    if (toStr) return `T(${text})`;
    return `(out(${text}), 0)`;
  }

  private formatted(e: A.Print, toStr: boolean): string {
    const parts = oldPointers(parseFormat(e.format ?? ''), this.compatible);
    if (typeof parts === 'string') {
      this.err(parts, e.tok);
      return '""';
    }
    const args = e.args.slice();
    const need = parts.reduce((n, p) => n + (typeof p === 'string' ? 0 : 1 + (p.widthStar ? 1 : 0) + (p.precStar ? 1 : 0)), 0);
    if (need !== args.length) {
      this.err('Wrong number of args to formatted print operator', e.tok);
      return '""';
    }
    // the buffer: one print buffer for printf, MAXSTRINGLEN bytes (with the NUL) for sprintf
    const size = toStr ? this.limits.maxStringLen : STP_BUFFER_SIZE;
    const convs = parts.filter((p): p is FormatConv => typeof p !== 'string');
    // fields whose text depends on the room left when the buffer is nearly full
    const exact = convs.some((p) => p.widthStar || p.precStar || p.width >= 0 || p.prec >= 0 || 'bmM'.includes(p.conv) ||
      (p.conv === 's' && this.longStrings));
    // conversions that can write a NUL byte, where an sprintf result ends
    const nul = toStr && convs.some((p) => 'bcm'.includes(p.conv) || (p.conv === 's' && p.flag === '0'));
    let ai = 0;
    const vals: string[] = []; // the argument values (temporaries when the exact form may need them)
    const arg = (a: A.Expr): string => {
      const v = this.ex(a);
      if (!exact) return v;
      const t = this.temp();
      vals.push(t);
      return `(${t} = ${v})`;
    };
    const pieces: string[] = [];
    for (const p of parts) {
      if (typeof p === 'string') {
        pieces.push(jsStr(p));
        continue;
      }
      const w = p.widthStar ? `star(${arg(args[ai++])}, ${size})` : p.width < 0 ? '-1' : `${clampInt(p.width, size)}`;
      const dump = p.conv === 'm' || p.conv === 'M';
      let pr: string;
      if (p.precStar) {
        const a = args[ai++];
        // a memory dump's size is checked before it is clamped (`N is too many bytes ...`)
        pr = dump ? `(L = ${this.loc(a.tok)}, memPrec(${arg(a)}, ${size}))` : `star(${arg(a)}, ${size})`;
      } else if (dump && p.prec > PAGE_SIZE) pr = `(L = ${this.loc(e.tok)}, memPrec(${jsInt(p.prec)}, ${size}))`;
      else pr = p.prec < 0 ? '-1' : `${clampInt(p.prec, size)}`;
      const a = args[ai++];
      if (this.statsArg(a)) {
        pieces.push('""');
        continue;
      }
      pieces.push(this.conv(p, a, arg(a), w, pr));
    }
    // (a very large MAXSTRINGLEN: the text is cut to the buffer as it grows, so that fields of
    // up to MAXSTRINGLEN bytes never add up past JS's string length limit)
    let text = !pieces.length ? '""' : toStr && size > 2 ** 20 ? pieces.reduce((x, y) => `C(${x}, ${y}, ${size})`) : pieces.join(' + ');
    if (!exact) {
      if (!toStr) return `(out(${text}), 0)`;
      return nul ? `Z(T(${text}))` : `T(${text})`;
    }
    const t = this.temp();
    const fx = `fx(${this.dataRef(parts as FormatPart[])}, [${vals.join(', ')}], ${size}, ${toStr ? 1 : 0}, c.mem)`;
    // fits: stap's clamps change nothing; else the field-by-field emulation
    text = `(${t} = ${text}, ${t}.length < ${toStr ? size : size + 1} ? ${nul ? `Z(${t})` : t} : ${fx})`;
    return toStr ? text : `(out(${text}), 0)`;
  }

  private conv(p: FormatConv, a: A.Expr, v: string, w: string, pr: string): string {
    const plain = !p.widthStar && !p.precStar && p.width < 0 && p.prec < 0 && p.flag === '';
    const isStr = a.type === 'string';
    // (a string for a numeric conversion is a type error of pass 2: still evaluated once)
    const n = isStr ? `(${v}, 0)` : v;
    switch (p.conv) {
      case 's':
        if (plain && !this.longStrings) return isStr ? v : `("" + ${v})`;
        return `fS(${isStr ? v : `("" + ${v})`}, ${jsStr(p.flag)}, ${w}, ${pr})`;
      case 'c':
        return `fC(${n}, ${jsStr(p.flag)}, ${w})`;
      case 'b':
        return `fB(${n}, ${jsStr(p.flag)}, ${w}, ${pr})`;
      case 'm':
      case 'M':
        return `(L = ${this.loc(a.tok)}, fM(${jsStr(p.conv)}, ${n}, ${jsStr(p.flag)}, ${w}, ${pr}, c.mem))`;
      default:
        if (plain && (p.conv === 'd' || p.conv === 'i')) return isStr ? v : `("" + ${v})`;
        return `fI(${jsStr(p.conv)}, ${n}, ${jsStr(p.flag)}, ${w}, ${pr})`;
    }
  }
}

/**
 * `%p` before 1.3 (--compatible): a zero-padded pointer, as stap 4.8's pass 3 writes it for
 * STAP_COMPAT_VERSION < 1.3 (real-stap --compatible 1.2 -p3): the width is the given one or
 * 2 + 2 * sizeof(void *), the precision width - 2 (at most 16 digits unless left-justified).
 * (A `*` width or precision keeps today's %p.)
 */
function oldPointers(parts: FormatPart[] | string, compatible: string | undefined): FormatPart[] | string {
  if (typeof parts === 'string' || !compatBefore(compatible, '1.3')) return parts;
  return parts.map((p) => {
    if (typeof p === 'string' || p.conv !== 'p' || p.widthStar || p.precStar) return p;
    const width = p.width < 0 ? 18 : p.width;
    const prec = p.flag === '-' ? width - 2 : Math.min(width - 2, 16);
    return { ...p, width, prec };
  });
}
