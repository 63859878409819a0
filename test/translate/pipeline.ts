/**
 * Test helper: the real pipeline (parse -> elaborate -> translate -> run) for a script text,
 * capturing stdout/stderr.  Independent of the CLI.
 */
import type * as A from '../../src/ast';
import { Diagnostics, PassFailed } from '../../src/diag';
import { parseFile } from '../../src/parse';
import { elaborate, TapsetLibrary, stdlibDir } from '../../src/elaborate';
import { translate, Translated } from '../../src/translate';
import { runProgram, RunOptions } from '../../src/runtime/engine';

export interface PipeResult { out: string; err: string; code: number; translated?: Translated }

export interface CompileOptions { defines?: Map<string, string>; args?: string[]; unoptimized?: boolean; name?: string; privilege?: string; guru?: boolean }

export function compile(text: string, opts: CompileOptions = {}): { tr?: Translated; err: string } {
  let err = '';
  const diag = new Diagnostics({ verbose: 0, suppressWarnings: true }, (s: string) => (err += s));
  const src: A.SourceFile = { name: opts.name ?? '<input>', text, isTapset: false };
  const args = opts.args ?? [];
  const guru = !!opts.guru;
  const f = parseFile(src, { args, guru, usedArgs: new Set(), privilege: opts.privilege } as never, diag);
  if (!f || diag.errorCount) return { err };
  const library = new TapsetLibrary({ dirs: [stdlibDir()], parse: { args, guru, privilege: opts.privilege }, diag });
  const prog = elaborate([f], { guru, args, library, unoptimized: opts.unoptimized, privilege: opts.privilege }, diag);
  if (!prog || diag.errorCount) return { err };
  try {
    return { tr: translate(prog, { diag, defines: opts.defines }), err };
  } catch (e) {
    if (e instanceof PassFailed) return { err };
    throw e;
  }
}

export async function runScript(text: string, opts: CompileOptions & { run?: RunOptions } = {}): Promise<PipeResult> {
  const c = compile(text, opts);
  if (!c.tr) return { out: '', err: c.err, code: 1 };
  let out = '';
  let err = c.err;
  const code = await runProgram(c.tr, {
    stdout: (s) => (out += s), stderr: (s) => (err += s), handleSignals: false, defines: opts.defines, timeoutSec: 100, ...opts.run,
  });
  return { out, err, code, translated: c.tr };
}
