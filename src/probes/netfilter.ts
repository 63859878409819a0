/**
 * `netfilter.hook("HOOK").pf("PF")[.priority("N")]` and `netfilter.pf("PF").hook("HOOK")[.priority("N")]`
 * (stap's tapset-netfilter.cxx): the handler runs as a netfilter hook function registered with
 * nf_register_net_hook() in the machine's network namespace (src/machine/netfilter.ts).
 *
 * Names (checked at pass 2, in stap's words; in guru mode (-g) other values pass through, and a
 * numeric one is used as is):
 *   PF        NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP, NFPROTO_BRIDGE
 *   HOOK      NF_INET_* / NF_IP_* (IPv4), NF_IP6_* (IPv6), NF_ARP_IN/OUT/FORWARD,
 *             NF_BR_PRE_ROUTING/LOCAL_IN/FORWARD/LOCAL_OUT/POST_ROUTING
 *   priority  a decimal int, or NF_IP_PRI_* (IPv4) / NF_IP6_PRI_* (IPv6); default 0
 * Context: `$hooknum`, `$skb` (struct sk_buff *), `$in`, `$out` (struct net_device *), `$okfn`
 * (read-only), `$verdict` (guru mode only; NF_ACCEPT unless the handler sets it: the hook's
 * return value).
 */
import type * as A from '../ast';
import { SemanticError } from '../diag';
import type { ProbeRegistry, Provider, BuildRequest, TargetAccess } from '../elaborate/probes';
import { renderComponents } from '../elaborate/util';
import type { TargetCodegenApi } from '../translate';
import type { ProbeContext } from '../runtime/context';
import type { Engine, ProbeFamilyRuntime, RegisteredProbe } from '../runtime/engine';
import type { Machine } from '../machine/machine';
import type { PtRegs, CpuContext } from '../kernel/current';
import { btfLookupType, btfFindMember } from '../kernel/btf';
import { kallsymsLookupName } from '../kernel/kallsyms';
import {
  NfHookOps, NfHookState, nfRegisterNetHook, nfUnregisterNetHook, NF_ACCEPT,
  NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP, NFPROTO_BRIDGE,
} from '../machine/net/netfilter';
import type { SkbView } from '../machine/include/net';
import { taskInfo, KHit } from './hit';
import { defineFamilyEnv, targetType as kernelTargetType, targetDefined as kernelTargetDefined, TargetEnv } from './targets';

// ---------------------------------------------------------------------------------------------
// names

interface NfNames {
  pf: Record<string, number>;
  hooks: Record<number, Record<string, number>>;
  priorities: Record<number, Record<string, number>>;
}

let nfNames: NfNames | undefined;
/**
 * The names stap accepts, made when a netfilter probe is first resolved (their values come from
 * the machine's netfilter module, which a script without netfilter probes never loads).
 * (null-prototype tables: a name from the script such as "constructor" finds nothing inherited)
 */
function names(): NfNames {
  if (nfNames) return nfNames;
  const inetHooks = ['PRE_ROUTING', 'LOCAL_IN', 'FORWARD', 'LOCAL_OUT', 'POST_ROUTING'];
  const table = (groups: [string, string[]][]): Record<string, number> => {
    const r: Record<string, number> = Object.create(null) as Record<string, number>;
    for (const [prefix, list] of groups) list.forEach((n, i) => { r[prefix + n] = i; });
    return r;
  };
  /** enum nf_ip_hook_priorities / nf_ip6_hook_priorities: the names stap accepts */
  const ipPri: [string, number][] = [
    ['FIRST', INT_MIN], ['CONNTRACK_DEFRAG', -400], ['RAW', -300], ['SELINUX_FIRST', -225], ['CONNTRACK', -200],
    ['MANGLE', -150], ['NAT_DST', -100], ['FILTER', 0], ['SECURITY', 50], ['NAT_SRC', 100], ['SELINUX_LAST', 225],
    ['CONNTRACK_CONFIRM', INT_MAX], ['LAST', INT_MAX],
  ];
  return (nfNames = {
    pf: Object.assign(Object.create(null) as Record<string, number>, { NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP, NFPROTO_BRIDGE }),
    hooks: {
      [NFPROTO_IPV4]: table([['NF_INET_', inetHooks], ['NF_IP_', inetHooks]]),
      [NFPROTO_IPV6]: table([['NF_IP6_', inetHooks]]),
      [NFPROTO_ARP]: table([['NF_ARP_', ['IN', 'OUT', 'FORWARD']]]),
      [NFPROTO_BRIDGE]: table([['NF_BR_', inetHooks]]),
    },
    priorities: {
      [NFPROTO_IPV4]: Object.assign(Object.create(null), Object.fromEntries(ipPri.map(([n, v]) => ['NF_IP_PRI_' + n, v]))),
      [NFPROTO_IPV6]: Object.assign(Object.create(null), Object.fromEntries(ipPri.filter(([n]) => n !== 'CONNTRACK_CONFIRM').map(([n, v]) => ['NF_IP6_PRI_' + n, v]))),
    },
  });
}
const INT_MIN = -2147483648, INT_MAX = 2147483647;

/** strtol(s, &end, 10) consuming the whole string, within int: the number, else null. */
function decimalInt(s: string): number | null {
  const m = /^[ \t\n\v\f\r]*([+-]?\d+)$/.exec(s);
  if (!m) return null;
  const v = Number(m[1]);
  return v >= INT_MIN && v <= INT_MAX ? (Object.is(v, -0) ? 0 : v) : null;
}

export interface NetfilterData {
  pf: number;
  hooknum: number;
  priority: number;
  /** guru mode: $verdict may be used */
  guru: boolean;
}

function strArg(c: A.ProbePointComponent): string {
  return c.arg && c.arg.k === 'str' ? c.arg.value : '';
}

function build(req: BuildRequest): A.ResolvedPoint[] {
  let hook = '', pf = '', prio: string | null = null;
  for (const c of req.components) {
    if (c.name === 'hook') hook = strArg(c);
    else if (c.name === 'pf') pf = strArg(c);
    else if (c.name === 'priority') prio = strArg(c);
  }
  const guru = req.guru;
  const need = '; need stap -g';
  const nf = names();
  let pfv: number | undefined = nf.pf[pf];
  if (pfv === undefined) {
    const n = decimalInt(pf);
    if (!guru) throw new SemanticError(`unsupported netfilter protocol family "${pf}"${need}`, undefined, [], 'netfilter-pf');
    pfv = n ?? Number.NaN;
  }
  let hv: number | undefined = nf.hooks[pfv]?.[hook];
  if (hv === undefined) {
    const n = decimalInt(hook);
    if (!guru) throw new SemanticError(`unsupported netfilter hook "${hook}" for protocol family "${pfv}"${need}`, undefined, [], 'netfilter-hook');
    hv = n ?? Number.NaN;
  }
  let pv = 0;
  if (prio !== null) {
    const named = nf.priorities[pfv]?.[prio];
    const n = named ?? decimalInt(prio);
    if (n === null) {
      if (!guru) throw new SemanticError(`unsupported netfilter priority "${prio}" for protocol family "${pfv}"${need}`, undefined, [], 'netfilter-priority');
      pv = Number.NaN;
    } else pv = n;
  }
  const data: NetfilterData = { pf: pfv, hooknum: hv, priority: pv, guru };
  return [{ family: 'netfilter', pp: renderComponents(req.components), data: data as unknown as Record<string, unknown> }];
}

// ---------------------------------------------------------------------------------------------
// context variables

/** the hook function's parameters as stap exposes them (KHit.args order) */
const PARAMS = ['hooknum', 'skb', 'in', 'out', 'okfn'];

let envTypes: { hooknum: number; skb: number; dev: number; okfn: number } | null = null;
function types(): { hooknum: number; skb: number; dev: number; okfn: number } {
  if (envTypes) return envTypes;
  const ui = btfLookupType('unsigned int') ?? 0;
  const st = btfLookupType('struct nf_hook_state');
  const okfn = st !== null ? btfFindMember(st, 'okfn')?.type ?? 0 : 0;
  envTypes = { hooknum: ui, skb: btfLookupType('struct sk_buff *') ?? 0, dev: btfLookupType('struct net_device *') ?? 0, okfn };
  return envTypes;
}

defineFamilyEnv('netfilter', (): TargetEnv => {
  const t = types();
  const ty = [t.hooknum, t.skb, t.dev, t.dev, t.okfn];
  return {
    vars: PARAMS.map((name, i) => ({ name, type: ty[i], base: { k: 'arg', i } })),
    ret: null, isReturn: false, where: 'netfilter hook', fnAddr: 0, file: '',
  };
});

type TExpr = A.Target | A.Cast | A.AtVar | A.Autocast;
const isVerdict = (e: TExpr | A.Entry): boolean => e.k === 'target' && e.name === '$verdict';
const isParam = (e: TExpr): boolean => e.k === 'target' && PARAMS.includes(e.name.slice(1)) && e.name.startsWith('$') && !e.name.startsWith('$$');
const guruOf = (rp: A.ResolvedPoint): boolean => (rp.data as unknown as NetfilterData).guru;

function unsupported(e: TExpr): SemanticError {
  return new SemanticError('unsupported context variable', e.tok, [], 'netfilter-var');
}
function verdictGuru(e: TExpr): SemanticError {
  return new SemanticError('write to netfilter verdict requires guru mode; need stap -g', e.tok, [], 'netfilter-verdict');
}

const provider: Provider = {
  family: 'netfilter',
  build,
  vars: () => [],
  targetType: (rp, e) => {
    if (e.k !== 'target') return kernelTargetType(rp, e);
    if (isVerdict(e)) {
      if (!guruOf(rp)) return verdictGuru(e);
      if (e.components.length || e.addressOf) return unsupported(e);
      return 'long';
    }
    if (!isParam(e)) return unsupported(e);
    return kernelTargetType(rp, e);
  },
  targetDefined: (rp, e) => {
    if (e.k !== 'target') return kernelTargetDefined(rp, e);
    if (isVerdict(e)) return guruOf(rp) && !e.components.length;
    return isParam(e) && kernelTargetDefined(rp, e);
  },
  targetAccess: (rp, e, access: TargetAccess) => {
    if (e.k !== 'target') return null;
    if (isVerdict(e)) return guruOf(rp) ? null : verdictGuru(e);
    if (access !== 'read' && isParam(e)) return new SemanticError('write to netfilter parameter not permitted', e.tok, [], 'netfilter-param');
    return null;
  },
};

/** Register the netfilter probe points (hook and pf in either order, then an optional priority). */
export function registerNetfilter(r: ProbeRegistry): void {
  for (const base of ['netfilter.hook(string).pf(string)', 'netfilter.pf(string).hook(string)']) {
    r.register(base, provider);
    r.register(`${base}.priority(string)`, provider);
  }
}

function netfilterVerdict(e: TExpr | A.Entry, api: TargetCodegenApi): boolean {
  return !!api.probe && api.probe.point.family === 'netfilter' && isVerdict(e);
}

/** Target codegen for `$verdict` reads (null: not ours). */
export function compileNetfilterTarget(e: TExpr | A.Entry, api: TargetCodegenApi): string | null {
  if (!netfilterVerdict(e, api)) return null;
  return '(c.data.verdict)';
}

/** Target codegen for `$verdict = v` (null: not ours). */
export function compileNetfilterAssign(e: A.Assign, api: TargetCodegenApi): string | null {
  const t = e.target;
  if (t.k !== 'target' || !netfilterVerdict(t, api)) return null;
  if (e.op !== '=') {
    api.err(`operator ${e.op} not supported on $verdict`, e.tok);
    return '0';
  }
  return `(c.data.setVerdict(${api.ex(e.value)}))`;
}

// ---------------------------------------------------------------------------------------------
// runtime

/** The hit record of a netfilter hook call (KHit: $hooknum, $skb, $in, $out, $okfn are its args). */
class NfHit implements KHit {
  regs: PtRegs = { ip: 0, parentIp: 0, args: [], retval: undefined };
  args: unknown[] = [];
  fn = -1;
  addr = 0;
  verdict = NF_ACCEPT;
  constructor(public cpuCtx: CpuContext) {}
  setVerdict(v: number | bigint): number | bigint {
    this.verdict = Number(BigInt.asUintN(32, BigInt(v)));
    return v;
  }
}

const okfnAddrs = new Map<string, number>();
let machine: Machine | null = null;
/** The machine whose network namespace gets the hooks (null: none; the probes never fire). */
export function setNetfilterMachine(m: Machine | null): void {
  machine = m;
}

export class NetfilterFamily implements ProbeFamilyRuntime {
  family = 'netfilter';
  private registered: { m: Machine; ops: NfHookOps }[] = [];
  private armed = false;

  register(probes: RegisteredProbe[], engine: Engine): void {
    this.armed = true;
    const m = machine;
    if (!m) return;
    for (const p of probes) {
      const d = p.meta.data as unknown as NetfilterData;
      const ops: NfHookOps = {
        pf: d.pf, hooknum: d.hooknum, priority: d.priority,
        hook: (_priv: unknown, skb: SkbView, st: NfHookState) => this.run(engine, p, skb, st),
      };
      const rc = Number.isNaN(d.priority) ? -22 : nfRegisterNetHook(m.net, ops);
      if (rc) engine.warn(`probe ${p.meta.pp} registration error [man warning::pass5] (rc ${rc})`);
      else this.registered.push({ m, ops });
    }
  }

  private run(engine: Engine, p: RegisteredProbe, skb: SkbView, st: NfHookState): number {
    if (!this.armed || engine.state !== 'RUNNING') return NF_ACCEPT;
    const ctx = st.cpu.ctx;
    const hit = new NfHit(ctx);
    let okfn = okfnAddrs.get(st.okfn);
    if (okfn === undefined) okfnAddrs.set(st.okfn, (okfn = kallsymsLookupName(st.okfn) ?? 0));
    hit.args = [st.hook, skb, st.in, st.out, okfn];
    hit.regs.args = hit.args;
    const m = p.meta;
    const c: ProbeContext = {
      pp: m.pp, pn: m.pn, probeIndex: m.index, family: m.family, probeType: 'netfilter',
      cpu: ctx.cpu, task: taskInfo(ctx.task), isReturn: false, userMode: false,
      engine, mem: undefined, data: hit,
    };
    engine.hit(p, c, null);
    return hit.verdict;
  }

  unregister(): void {
    this.armed = false;
    for (const r of this.registered) nfUnregisterNetHook(r.m.net, r.ops);
    this.registered = [];
  }
}
