/**
 * awk as Debian 12 installs it (/usr/bin/awk -> /etc/alternatives/awk -> mawk 1.3.4): the command
 * line (-F, -v, -f, --, var=value operands), the input files and stdin read whole, then the
 * interpreter of userland/awk/ runs the program over them.
 */
import type { ProgramMain } from '../../process/user';
import { bytesToString } from '../../process/user';
import { compileAwk, readsInput, runAwk, Operand } from '../awk/interp';
import { defaultEnvironment } from '../environment';
import { O_WRONLY, O_CREAT, O_TRUNC, O_APPEND } from '../../include/fs';

export const awkMain: ProgramMain = function* (u, argv) {
  let fs: string | null = null;
  const assigns: [string, string][] = [];
  let progText: string | null = null;
  let i = 1;
  const usage = function* (msg: string) { yield* u.err(`awk: ${msg}\n`); return 2; };
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { i++; break; }
    if (!a.startsWith('-') || a === '-') break;
    const val = (): string | undefined => (a.length > 2 ? a.slice(2) : argv[++i]);
    if (a.startsWith('-F')) { const v = val(); if (v === undefined) return yield* usage('option requires an argument -- F'); fs = v; continue; }
    if (a.startsWith('-v')) {
      const v = val();
      const m = v === undefined ? null : /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(v);
      if (!m) return yield* usage(`improper assignment: -v ${v ?? ''}`);
      assigns.push([m[1], m[2]]);
      continue;
    }
    if (a.startsWith('-f')) {
      const f = val();
      if (f === undefined) return yield* usage('option requires an argument -- f');
      const fd = yield* u.open(f);
      if (fd < 0) { yield* u.err(`awk: couldn't open file ${f}\n`); return 2; }
      progText = (progText ?? '') + bytesToString(yield* u.readAll(fd)) + '\n';
      yield* u.close(fd);
      continue;
    }
    if (a.startsWith('-W')) {
      const w = val() ?? '';
      if (w.startsWith('v')) { yield* u.out('mawk 1.3.4 20200120\nCopyright 2008-2019,2020, Thomas E. Dickey\nCopyright 1991-1996,2014, Michael D. Brennan\n\n'); return 0; }
      continue;
    }
    return yield* usage(`not an option: ${a}`);
  }
  if (progText === null) {
    if (i >= argv.length) {
      yield* u.err('usage: awk [-F value] [-v var=value] [--] \'program text\' [file ...]\nusage: awk [-F value] [-v var=value] [-f program-file] [--] [file ...]\n');
      return 2;
    }
    progText = argv[i++];
  }
  const prog = compileAwk(progText);
  if (typeof prog === 'string') { yield* u.err(prog); return 2; }
  if (fs !== null) assigns.unshift(['FS', fs === 't' ? '\t' : fs]);
  const operands: Operand[] = [];
  let stdinText = '';
  if (readsInput(prog)) {
    for (const a of argv.slice(i)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/.exec(a);
      if (m) { operands.push({ assign: m[1], value: m[2] }); continue; }
      if (a === '-' || a === '/dev/stdin') { operands.push({ file: a, data: bytesToString(yield* u.readAll(0)) }); continue; }
      const fd = yield* u.open(a);
      if (fd < 0) { operands.push({ file: a, data: null }); continue; }
      operands.push({ file: a, data: bytesToString(yield* u.readAll(fd)) });
      yield* u.close(fd);
    }
    if (!operands.some((o) => 'file' in o)) stdinText = bytesToString(yield* u.readAll(0));
  }
  const r = runAwk(prog, assigns, operands, () => stdinText, defaultEnvironment());
  if (r.out) yield* u.out(r.out);
  for (const f of r.files) {
    const fd = yield* u.open(f.name, O_WRONLY | O_CREAT | (f.append ? O_APPEND : O_TRUNC));
    if (fd < 0) { yield* u.err(`awk: cannot open "${f.name}" for output\n`); return 2; }
    yield* u.writeAll(fd, f.data);
    yield* u.close(fd);
  }
  if (r.err) yield* u.err(r.err);
  return r.status;
};
