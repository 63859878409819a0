/**
 * The random keys the IPv4 connect path makes on first use after boot (include/linux/net.h
 * net_get_random_once, include/linux/once.h DO_ONCE / DO_ONCE_SLEEPABLE, lib/once.c): per boot, the
 * first TCP connect
 *
 * - seeds `net_secret` in secure_ipv4_port_ephemeral (net/core/secure_seq.c net_secret_init: DO_ONCE
 *   under a spinlock, get_random_bytes of the siphash key),
 * - fills `table_perturb` in __inet_hash_connect (net/ipv4/inet_hashtables.c: get_random_sleepable_once
 *   under once_mutex, get_random_bytes of INET_TABLE_PERTURB_SIZE (1 << 16) u32s = 256 KB = 4096
 *   ChaCha blocks),
 * - seeds `inet_ehash_secret` in inet_ehashfn (net/ipv4/inet_hashtables.c, DO_ONCE),
 *
 * each followed by once_disable_jump (kmalloc, __module_get, schedule_work of the static key's
 * disabling).  Later connects find the keys made and call none of it.  The tcp-http recording's connect
 * (data/recordings/tcp-http.json.gz, the first after its boot) shows all three (chacha_block_generic
 * 4,101 times), tbench's (a later one in its boot) none; no recording shows a TCP connect by the idle
 * system or its services, so the machine boots with none made.  The bodies run here are those recorded
 * (the entry model's sys:connect variant that made them), compiled once.
 */
import type { NetMachine } from './core';
import { Semantics } from '../paths/semantics';
import { pushPath, H_CONT, H_PUSHED } from '../paths/kexec';
import { modelKey, modelFunctions, modelFnId, variantAt, variantCount } from '../paths/model';
import { compileShape, parseModelShape, shapeText, type MNode } from '../paths/compile';
import { int3SiteCount } from '../../kernel/kprobes';
import type { CompiledPath } from '../include/kstack';

/** The onces of the connect path: the key made, the function whose recorded callees make it, which of them. */
const ONCES: readonly { key: string; fn: string; from?: string; to?: string }[] = [
  { key: 'net_secret', fn: 'secure_ipv4_port_ephemeral' },
  // __inet_hash_connect's other callees (the port search) run every time: the once is mutex_lock ..
  // the schedule_work of once_disable_jump
  { key: 'table_perturb', fn: '__inet_hash_connect', from: 'mutex_lock', to: 'queue_work_on' },
  { key: 'inet_ehash_secret', fn: 'inet_ehashfn' },
];

/** The keys made so far on this machine's boot. */
const made = new WeakMap<object, Set<string>>();
/** Whether once `key` has not run on `m` yet (and marks it run). */
export function firstUse(m: NetMachine, key: string): boolean {
  let s = made.get(m.net);
  if (!s) made.set(m.net, (s = new Set()));
  if (s.has(key)) return false;
  s.add(key);
  return true;
}

/** The recorded body of each once (shape text over the model's functions), found once. */
let bodies: Map<string, string> | null = null;
function recordedBodies(): Map<string, string> {
  if (bodies) return bodies;
  bodies = new Map();
  const k = modelKey('sys:connect');
  const names = modelFunctions();
  if (!k) return bodies;
  const idx = (n: string): number => names.indexOf(n);
  const find = (ns: readonly MNode[], f: number): MNode | null => {
    for (const n of ns) {
      if (n.fn === f && n.kids.length) return n;
      const r = find(n.kids, f);
      if (r) return r;
    }
    return null;
  };
  for (let i = 0; i < variantCount(k) && bodies.size < ONCES.length; i++) {
    const tree = parseModelShape(variantAt(k, i).shape);
    for (const o of ONCES) {
      if (bodies.has(o.key)) continue;
      const n = find(tree, idx(o.fn));
      if (!n) continue;
      let kids = n.kids;
      if (o.from && o.to) {
        const a = kids.findIndex((x) => x.fn === idx(o.from!));
        const b = kids.findIndex((x, j) => j > a && x.fn === idx(o.to!));
        if (a < 0 || b < 0) continue;
        kids = kids.slice(a, b + 1);
      }
      bodies.set(o.key, shapeText(kids));
    }
  }
  return bodies;
}

const compiled = new Map<string, CompiledPath>();
/** The program of once `key`'s recorded body (null: no recording has it). */
function onceProgram(key: string): CompiledPath | null {
  const inline = int3SiteCount() > 0;
  const ck = `${key}${inline ? '+inline' : ''}`;
  let p = compiled.get(ck);
  if (p) return p;
  const text = recordedBodies().get(key);
  if (text === undefined) return null;
  p = compileShape(`once:${key}`, text, 0, text.length, -1, modelFnId, inline);
  compiled.set(ck, p);
  return p;
}

export const netOnce = new Semantics<NetMachine>('net/once');

for (const o of ONCES) {
  netOnce.hook(`once_${o.key}`, (m, c, _t, e) => {
    if (!firstUse(m, o.key)) return H_CONT;
    const p = onceProgram(o.key);
    if (!p) return H_CONT;
    pushPath(c.ks, p, e);
    return H_PUSHED;
  });
}
