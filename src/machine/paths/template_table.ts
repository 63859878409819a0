/**
 * The hand-written call-path templates (paths/templates/, and those subsystems define: paths/dsl.ts)
 * compiled by the build, so a start reads their programs instead of parsing and compiling the text
 * and looking up every function name.  `npm run build` writes dist/kernel-tables/templates.bin
 * (scripts/build-kernel-tables.ts):
 *
 *   line 1     the header's length in bytes (decimal)
 *   header     JSON {format, symtab, names: {tp, hook, cond, inl, model}, sources: {NAME: [offset, length]},
 *              paths: {NAME: [deps, code offset, code length, operands length]}}
 *   body       the text of each template (UTF-8), then each template's program (little- or big-endian int32 as the host writes them: the
 *              format names the byte order), followed by the positions of its operands that index a
 *              process's own numbering (tracepoints, hooks, conditions, inline references, model
 *              keys: `names` lists the build's, paths/dsl.ts renumbers them to the running process's)
 *
 * A program holds kallsyms ids, so it is used only with the symbol table `symtab` (ksymtab.ts
 * sourceStamp), and only while every template it was compiled from (`deps`: itself and what it
 * includes) has the text it had (`sources`: compared whole, which costs less than hashing it); else the template compiles from its
 * text as before.  A stale or missing table is only unused.
 */
import * as fs from 'fs';
import { sourceStamp } from '../../kernel/ksymtab';
import { builtTableFile, writeTable } from './model_table';

const FORMAT = `tapsim-templates-1-${new Uint8Array(Uint32Array.of(1).buffer)[0] === 1 ? 'LE' : 'BE'}`;

/** The build's numbering of the operands its programs hold. */
export interface TemplateNames { tp: string[]; hook: string[]; cond: string[]; inl: [string, number[]][]; model: string[] }

/** A template as the build compiled it: its program, the positions of its renumbered operands, what it was compiled from. */
export interface BuiltTemplate { name: string; deps: string[]; code: Int32Array; at: Int32Array }

interface Header {
  format: string;
  symtab: string;
  names: TemplateNames;
  sources: Record<string, [number, number]>;
  paths: Record<string, [string[], number, number, number]>;
}

/** The templates a template's text includes (`*name` lines), directly. */
export function includesOf(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^[ \t]*\*([^\s#]+)/gm)) out.push(m[1]);
  return out;
}

/** dist/kernel-tables/templates.bin */
export function builtTemplateTableFile(): string {
  return builtTableFile('templates.bin');
}

/** Build step: write the table of `programs` (operands numbered as `names`; template texts `source`) to `file`; returns its size. */
export function writeTemplateTable(file: string, programs: readonly BuiltTemplate[], names: TemplateNames, source: (name: string) => string): number {
  const chunks: Buffer[] = [];
  let off = 0;
  const paths: Header['paths'] = {};
  const sources: Record<string, [number, number]> = {};
  for (const p of programs) {
    for (const d of p.deps) {
      if (sources[d]) continue;
      const text = Buffer.from(source(d), 'utf8');
      sources[d] = [off, text.length];
      chunks.push(text);
      off += text.length;
    }
  }
  // the programs are int32: aligned in the body (readTemplateTable copies them out)
  const pad = (4 - (off & 3)) & 3;
  chunks.push(Buffer.alloc(pad));
  off += pad;
  for (const p of programs) {
    const code = Buffer.from(p.code.buffer, p.code.byteOffset, p.code.byteLength);
    const at = Buffer.from(p.at.buffer, p.at.byteOffset, p.at.byteLength);
    paths[p.name] = [p.deps, off, code.length, at.length];
    chunks.push(code, at);
    off += code.length + at.length;
  }
  const header = Buffer.from(JSON.stringify({ format: FORMAT, symtab: sourceStamp(), names, sources, paths } satisfies Header), 'latin1');
  return writeTable(file, Buffer.concat([Buffer.from(`${header.length}\n`, 'latin1'), header, ...chunks]));
}

/** The table as a process reads it: the build's numbering, and each template's program when still current. */
export interface TemplateTable {
  names: TemplateNames;
  /** the program of template `name` (a fresh copy: the caller renumbers it) when the table has a current one */
  program(name: string): { code: Int32Array; at: Int32Array } | null;
}

/**
 * The table in `file` if it is for this symbol table, else null.  `source` gives a template's
 * current text (undefined: not defined now); each template's hash is worked out once.
 */
export function readTemplateTable(file: string, source: (name: string) => string | undefined): TemplateTable | null {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch {
    return null;
  }
  try {
    const nl = buf.indexOf(10);
    if (nl <= 0 || nl > 12) return null;
    const hlen = Number(buf.toString('latin1', 0, nl));
    const base = nl + 1 + hlen;
    if (!(hlen > 0) || base > buf.length) return null;
    const h = JSON.parse(buf.toString('latin1', nl + 1, base)) as Header;
    if (h.format !== FORMAT || h.symtab !== sourceStamp()) return null;
    const same = new Map<string, boolean>();
    const current = (d: string): boolean => {
      let ok = same.get(d);
      if (ok === undefined) {
        const text = source(d);
        const at = Object.prototype.hasOwnProperty.call(h.sources, d) ? h.sources[d] : undefined;
        ok = text !== undefined && at !== undefined && buf.toString('utf8', base + at[0], base + at[0] + at[1]) === text;
        same.set(d, ok);
      }
      return ok;
    };
    return {
      names: h.names,
      program(name) {
        const p = Object.prototype.hasOwnProperty.call(h.paths, name) ? h.paths[name] : undefined;
        if (!p || !p[0].every(current)) return null;
        const [, off, cl, al] = p;
        const all = new Int32Array((cl + al) >> 2);
        new Uint8Array(all.buffer).set(buf.subarray(base + off, base + off + cl + al));
        return { code: all.subarray(0, cl >> 2), at: all.subarray(cl >> 2) };
      },
    };
  } catch {
    return null;
  }
}
