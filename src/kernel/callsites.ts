/**
 * Where calls return to: the call instructions of the functions the machine model runs
 * (data/kernel/callsites.gz, scripts/kernel-data/callsites.py from `objdump -d` of the -dbg vmlinux
 * and of the modules), so a backtrace frame of a caller shows the return address of its real call
 * (`vfs_read+0x6f/0x310`, `entry_SYSCALL_64_after_hwframe+0x6e/0xd8`) instead of a made-up offset.
 *
 *   returnAddress(callerId, calleeId)   // kallsyms ids -> absolute return address in the caller
 */
import { readDataText, noteParseTime } from './data';
import { lookupName, isFunction, symbolAddr, symbolName, symbolModule, dwarfName, symbolCount } from './kallsyms';

/** caller id -> [return offset, call target name ('*' indirect)] in address order */
let table: Map<number, [number, string][]> | null = null;

function load(): Map<number, [number, string][]> {
  if (table) return table;
  const text = readDataText('callsites.gz');
  const t0 = Date.now();
  table = new Map();
  let cur: [number, string][] | null = null;
  for (const line of text.split('\n')) {
    if (!line) continue;
    const f = line.split('\t');
    if (f[0] === 'F') {
      const mod = f[2] ?? '';
      const id = lookupName(f[1]).find((i) => isFunction(i) && symbolModule(i) === mod);
      cur = id === undefined ? null : [];
      if (id !== undefined) table.set(id, cur!);
      continue;
    }
    if (cur) cur.push([parseInt(f[0], 16), f[1]]);
  }
  noteParseTime('callsites.gz', Date.now() - t0);
  return table;
}

const cache = new Map<number, number>();
/** per callee: the caller last asked for and its answer (hot paths call from one caller mostly) */
let lastCaller: Int32Array | null = null;
let lastRet: Float64Array | null = null;

/**
 * The return address of `caller`'s call of `callee`: the first call of it (by symbol or DWARF
 * name), else its first indirect call (function pointers, the model's shortcuts through inlined or
 * unmodelled helpers), else its first call of anything but __fentry__; caller + 5 (past the fentry
 * call) when the data has no calls for it.
 */
export function returnAddress(caller: number, callee: number): number {
  const lc = lastCaller;
  if (lc !== null && callee >= 0 && lc[callee] === caller) return lastRet![callee];
  const a = lookupReturnAddress(caller, callee);
  if (callee >= 0) {
    if (lc === null) {
      lastCaller = new Int32Array(symbolCount()).fill(-1);
      lastRet = new Float64Array(symbolCount());
    }
    lastCaller![callee] = caller;
    lastRet![callee] = a;
  }
  return a;
}

/** _RET_IP_ of the function on top of a kernel stack (`fn[sp - 1]`): its return address in its caller, 0 with no caller. */
export function stackRetIp(fn: ArrayLike<number>, sp: number): number {
  return sp >= 2 ? returnAddress(fn[sp - 2], fn[sp - 1]) : 0;
}

function lookupReturnAddress(caller: number, callee: number): number {
  const key = caller * 0x40000 + callee;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const sites = load().get(caller);
  let off = 5;
  if (sites && sites.length) {
    const name = callee >= 0 ? symbolName(callee) : '';
    const base = callee >= 0 ? dwarfName(callee) : '';
    const pick = sites.find(([, t]) => t === name) ?? sites.find(([, t]) => t === base || t.split('.')[0] === base)
      ?? sites.find(([, t]) => t === '*') ?? sites.find(([, t]) => t !== '__fentry__');
    if (pick) off = pick[0];
  }
  const a = symbolAddr(caller) + off;
  cache.set(key, a);
  return a;
}
