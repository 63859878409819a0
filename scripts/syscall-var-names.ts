/**
 * stap 4.8's names for the variables of the generated syscall aliases (issue 16: scripts from the
 * web run unchanged).  scripts/gen-syscall-tapsets.ts derives each alias's variables from the
 * kernel's SYSCALL_DEFINE parameters (a path string and its _uaddr, a user pointer's _uaddr, a
 * scalar, a flag's _str); stap 4.8's tapsets name many of them otherwise (syscall.access's path
 * is `pathname`, syscall.kill's signal name `sig_name`, the clock_* clock `clk_id`).
 * data/tapset-names/stap-4.8-syscall-vars.txt lists the names stap 4.8 gives each alias
 * (scripts/tapset-names/alias_vars.py --syscalls, names only); conformVars() maps each generated
 * variable onto the one of the list with the same role:
 *
 *   - a path string S: a listed name with an `S_unquoted` companion (the one its name shares a
 *     prefix with, or the only one left); `S_unquoted` (user_string_nofault) and `S_uaddr` are
 *     defined when the list has them (the address is `X` or `X_uaddr` where the string is `X_str`);
 *   - a user pointer: a listed `_uaddr` name that is no path's, else the listed bare name;
 *   - a scalar: a listed name that is no pointer, path or formatted string;
 *   - a formatted flag/enum: its renamed scalar's `_str` (a decoded user struct: its address's
 *     stem's), else a listed `_str` / `_name` left;
 *
 * and makes private (`_NAME`) what stap 4.8 does not define, so that `argstr` keeps its
 * arguments while the public names are 4.8's.
 */
import * as fs from 'fs';

export interface Var { name: string; expr: string; fmt: string; shown: string }

export function readSyscallVars(file: string): Map<string, Set<string>> {
  const m = new Map<string, Set<string>>();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const [name, ...vars] = line.split(' ');
    m.set(name, new Set(vars));
  }
  return m;
}

type Role = 'string' | 'strAddr' | 'pointer' | 'flag' | 'scalar' | 'other';

/** Synonyms stap 4.8 uses for a SYSCALL_DEFINE parameter name (tried before the prefix rule). */
const SYNONYMS: Record<string, string[]> = {
  fd: ['fildes', 'filedes', 'sockfd', 's', 'oldfd', 'fd_in'],
  fildes: ['oldfd', 'fd'],
  user: ['owner'],
  which_clock: ['clk_id'],
  which: ['which'],
  dfd: ['dirfd'],
  olddfd: ['olddirfd'],
  newdfd: ['newdirfd'],
  cmd: ['request', 'operation', 'option'],
  upeer_sockaddr: ['addr'],
  upeer_addrlen: ['addrlen'],
  umyaddr: ['my_addr'],
  uservaddr: ['serv_addr'],
  txc_p: ['buf'],
  nset: ['set'],
  oset: ['oldset'],
  inp: ['readfds'],
  outp: ['writefds'],
  exp: ['exceptfds'],
  tvp: ['timeout'],
  uattr: ['attr'],
  utx: ['tx'],
  tp: ['res'],
  name: ['name_user', 'filename', 'path', 'pathname'],
  dev_name: ['source'],
  dir_name: ['target'],
  u_name: ['filename', 'u_name'],
};

function prefixLen(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/** The candidate stap 4.8 most likely names `stem` by: a synonym, a shared prefix, the only one. */
function pick(name: string, cands: string[], alone: boolean): string | null {
  const stem = name.replace(/^_/, '');
  const strip = (c: string): string => c.replace(/_uaddr$/, '');
  for (const s of SYNONYMS[stem] ?? []) {
    const c = cands.find((x) => strip(x) === s);
    if (c) return c;
  }
  let best: string | null = null;
  let bestLen = 2;
  for (const c of cands) {
    const s = strip(c);
    const l = s.includes(stem) || stem.includes(s) ? Math.min(s.length, stem.length) + 1 : prefixLen(s, stem);
    if (l > bestLen) { best = c; bestLen = l; }
  }
  if (best) return best;
  return alone && cands.length === 1 ? cands[0] : null;
}

/** `names` replaced in `text` outside its string literals. */
function renameIn(text: string, names: Map<string, string>): string {
  return text.split(/("(?:[^"\\]|\\.)*")/).map((part, i) => (i % 2 ? part
    : part.replace(/[A-Za-z_]\w*/g, (id) => names.get(id) ?? id))).join('');
}

/**
 * `vars` and `argstr` with stap 4.8's names of alias list `ref`; `hint`, another flavour's list of
 * the same syscall, tells its path strings where `ref` has no `_unquoted` (the DWARF flavour).
 */
export function conformVars(ref: Set<string> | undefined, vars: Var[], argstr: string,
  hint?: Set<string>): { vars: Var[]; argstr: string } {
  if (!ref) return { vars, argstr };
  const names = new Set(vars.map((v) => v.name));
  const role = new Map<string, Role>();
  const strAddr = new Map<string, string>();
  const flagOf = new Map<string, string>();
  for (const v of vars) {
    const s = /^user_string_quoted\((\w+)\)$/.exec(v.expr);
    if (s && names.has(s[1])) { role.set(v.name, 'string'); role.set(s[1], 'strAddr'); strAddr.set(v.name, s[1]); continue; }
    const f = /^_\w+\((?:[A-Za-z_]\w*, )?([A-Za-z_]\w*)(?:, \d+)?\)$/.exec(v.expr);
    if (f && names.has(f[1])) { role.set(v.name, 'flag'); flagOf.set(v.name, f[1]); continue; }
  }
  for (const v of vars) {
    if (role.has(v.name)) continue;
    role.set(v.name, /^__sc_arg\(\d+\)$/.test(v.expr) && v.name.endsWith('_uaddr') ? 'pointer'
      : /^__sc_arg(i32|u32)?\(\d+\)$/.test(v.expr) ? 'scalar' : 'other');
  }
  const refStr = [...ref].filter((n) => ref.has(`${n}_unquoted`) || (hint && hint.has(`${n}_unquoted`)));
  const strAddrs = new Set(refStr.map((s) => `${s}_uaddr`));
  const formatted = (n: string): boolean => /_(str|name|unquoted)$/.test(n);
  const used = new Set<string>(['name', 'argstr']);
  const map = new Map<string, string>();
  const take = (old: string, nu: string): void => { map.set(old, nu); used.add(nu); };
  const extra: Var[] = [];
  const of = (r: Role): string[] => vars.filter((v) => role.get(v.name) === r).map((v) => v.name);
  // names stap 4.8 also gives the same role keep theirs
  for (const v of vars) {
    const r = role.get(v.name)!;
    if (r === 'strAddr' || r === 'flag') continue;
    if (ref.has(v.name) && (r !== 'string' || refStr.includes(v.name) || !refStr.length)) take(v.name, v.name);
  }
  const strings = of('string');
  for (const s of strings) {
    let nu: string | null = map.get(s) ?? null;
    if (!nu) {
      nu = pick(s, refStr.filter((c) => !used.has(c)), strings.filter((x) => !map.has(x)).length === 1);
      if (nu) take(s, nu);
    }
    const addr = strAddr.get(s)!;
    const name = nu ?? s;
    // syscall.unlinkat / renameat: the address is `pathname`, its string `pathname_str`
    const bare = name.replace(/_str$/, '');
    take(addr, ref.has(`${name}_uaddr`) ? `${name}_uaddr`
      : bare !== name && ref.has(bare) && !used.has(bare) ? bare
        : bare !== name && ref.has(`${bare}_uaddr`) ? `${bare}_uaddr` : `_${name}_uaddr`);
    if (nu && ref.has(`${nu}_unquoted`)) {
      extra.push({ name: `${nu}_unquoted`, expr: `user_string_nofault(${map.get(addr)})`, fmt: '', shown: '' });
      used.add(`${nu}_unquoted`);
    }
  }
  const pointers = of('pointer').filter((p) => !map.has(p));
  for (const p of pointers) {
    const stem = p.replace(/_uaddr$/, '');
    const cands = [...ref].filter((c) => c.endsWith('_uaddr') && !used.has(c) && !strAddrs.has(c));
    const nu = pick(stem, cands, pointers.filter((x) => !map.has(x)).length === 1)
      ?? (ref.has(stem) && !used.has(stem) && !refStr.includes(stem) ? stem : null);
    if (nu) take(p, nu);
  }
  const scalars = of('scalar').filter((p) => !map.has(p));
  for (const p of scalars) {
    const cands = [...ref].filter((c) => !used.has(c) && !c.endsWith('_uaddr') && !formatted(c) && !refStr.includes(c));
    const nu = pick(p, cands, scalars.filter((x) => !map.has(x)).length === 1);
    if (nu) take(p, nu);
  }
  const flags = of('flag');
  for (const f of flags) {
    const base = map.get(flagOf.get(f)!) ?? flagOf.get(f)!;
    // a user struct's string: its address's stem (req_uaddr: req_str); semctl's cmd: cmdstr
    const own = [`${base}_str`, `${base}_name`, `${base.replace(/_uaddr$/, '')}_str`, `${base}str`].find((c) => ref.has(c) && !used.has(c));
    if (own) { take(f, own); continue; }
    const cands = [...ref].filter((c) => /_(str|name)$/.test(c) && !used.has(c)
      && !refStr.some((s) => c.startsWith(s)) && !ref.has(c.replace(/_(str|name)$/, '_uaddr')));
    if (cands.length === 1 && flags.filter((x) => !map.has(x)).length === 1) take(f, cands[0]);
  }
  // a quoted buffer stap 4.8 names by the argument (syscall.sendto's buf)
  for (const v of of('other')) {
    const bare = v.replace(/_str$/, '');
    if (bare !== v && !ref.has(v) && ref.has(bare) && !used.has(bare)) take(v, bare);
  }
  for (const v of vars) if (!map.has(v.name)) map.set(v.name, ref.has(v.name) && !used.has(v.name) ? v.name : `_${v.name}`);
  const out = vars.map((v) => ({ ...v, name: map.get(v.name)!, expr: renameIn(v.expr, map), shown: renameIn(v.shown, map) }));
  return { vars: [...out, ...extra], argstr: renameIn(argstr, map) };
}
