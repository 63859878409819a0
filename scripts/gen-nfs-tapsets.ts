/**
 * Generates stdlib/nfs.stp, stdlib/nfsd.stp and stdlib/rpc.stp: SystemTap 4.8's nfs.*, nfsd.* and
 * sunrpc.* aliases on the same probe points (data/tapset-names/nfs-points.txt: stap -v
 * --dump-probe-aliases, names only; scripts/tapset-names/families.py), over the modules' real
 * functions (module("nfs"), module("nfsv3"), module("nfsd"), module("sunrpc") ... of Debian's
 * 6.1.0-56, data/kernel/modules.gz and their BTF).
 *
 *   npx tsc -p . && node dist/scripts/gen-nfs-tapsets.js
 *
 * The variables are those `stap -L` lists for each alias on Debian 6.1 (the same file), computed
 * here from the probed function's parameters by the rules of VARS below: the file, dentry and
 * inode variables (dev, ino, s_id, devname, filename, filelen, i_size ...), the sizes and offsets,
 * the RPC client's program, version, protocol, port and server address (the stdlib/rpc_helpers.stp
 * functions), the nfsd request's client address, version, protocol and credentials, and
 * retstr/retvalue of .return probes.  A variable no rule can compute from the function's
 * parameters is left out (the script says which with -v). The aliases of HAND_WRITTEN's files are
 * not generated (those files compute them as 4.8 does). The simulated machine runs no NFS: these
 * probes resolve, list and compile, and fire only if a path reaches the functions.
 */
import * as fs from 'fs';
import * as path from 'path';
import { btfFunc, btfTypeName } from '../src/kernel/btf';

const DATA = path.resolve(__dirname, '..', '..', 'data', 'tapset-names', 'nfs-points.txt');
const OUT = path.resolve(__dirname, '..', '..', 'stdlib');

interface Alias { name: string; points: string }
type Params = Map<string, string>;

/** `$name:type` pairs stap -L lists, or the BTF prototype of the first function probed. */
function paramsOf(listing: string | undefined, points: string): Params {
  const m: Params = new Map();
  if (listing) {
    for (const v of listing.match(/\$\w+:[^$]*/g) ?? []) {
      const i = v.indexOf(':');
      m.set(v.slice(1, i), v.slice(i + 1).trim());
    }
    return m;
  }
  for (const f of points.match(/function\("([^"]+)"\)/g) ?? []) {
    const fn = btfFunc(/"([^"@]+)/.exec(f)![1]);
    if (!fn) continue;
    for (const p of fn.params) m.set(p.name, btfTypeName(p.type));
    return m;
  }
  return m;
}

const isPtr = (t: string | undefined, s: string): boolean => !!t && t.replace(/\s+/g, ' ').includes(s) && t.trim().endsWith('*');

/** Expressions for the objects the variables derive from, when the parameters have one. */
function sources(p: Params): Record<string, string> {
  const s: Record<string, string> = {};
  const first = (names: string[], type: string): string | undefined => names.find((n) => isPtr(p.get(n), type));
  const file = first(['filp', 'file'], 'struct file');
  const dentry = first(['dentry', 'old_dentry'], 'struct dentry');
  const inode = first(['inode', 'dir', 'old_dir'], 'struct inode');
  if (file) s.file = `$${file}`;
  if (inode) s.inode = `$${inode}`;
  else if (file) s.inode = `$${file}->f_inode`;
  else if (dentry) s.inode = `$${dentry}->d_inode`;
  else if (isPtr(p.get('mapping'), 'address_space')) s.inode = '$mapping->host';
  else if (isPtr(p.get('page'), 'struct page')) s.inode = '$page->mapping->host';
  else if (isPtr(p.get('hdr'), 'nfs_pgio_header')) s.inode = '$hdr->inode';
  else if (isPtr(p.get('data'), 'nfs_commit_data')) s.inode = '$data->inode';
  if (dentry) s.dentry = `$${dentry}`;
  else if (file) s.dentry = `$${file}->f_path->dentry`;
  if (isPtr(p.get('clnt'), 'rpc_clnt')) s.clnt = '$clnt';
  else if (isPtr(p.get('task'), 'rpc_task')) s.clnt = '$task->tk_client';
  else if (s.inode) s.clnt = `NFS_CLIENT(${s.inode})`;
  if (isPtr(p.get('rqstp'), 'svc_rqst')) s.rqstp = '$rqstp';
  if (isPtr(p.get('fhp'), 'svc_fh')) s.fhp = '$fhp';
  if (isPtr(p.get('task'), 'rpc_task')) s.task = '$task';
  return s;
}

/** VARIABLE -> [type, expression from the sources and parameters] (null: not computable here). */
function rule(v: string, p: Params, s: Record<string, string>, ret: boolean): [string, string] | null {
  const has = (n: string): boolean => p.has(n);
  const I = s.inode, D = s.dentry, C = s.clnt, R = s.rqstp;
  switch (v) {
    case 'dev': return I ? ['long', `__nfs_dev(${I})`] : null;
    case 'ino': return I ? ['long', `${I}->i_ino`] : null;
    case 's_id': return I ? ['long', `& ${I}->i_sb->s_id`] : null;
    case 'devname': return I ? ['string', `kernel_string(& ${I}->i_sb->s_id, "")`] : null;
    case 'i_size': return I ? ['long', `${I}->i_size`] : null;
    case 'i_mode': return I ? ['long', `${I}->i_mode`] : null;
    case 'inode': return I ? ['long', I] : null;
    case 'filename': case 'file_name': case 'old_name':
      return D ? ['string', `__nfs_dname(${D})`] : has('fname') ? ['string', `kernel_string_n($fname, ${has('flen') ? '$flen' : '255'})`] : null;
    case 'filelen': case 'name_len': case 'old_filelen':
      return D ? ['long', `${D}->d_name->len`] : has('flen') ? ['long', '$flen'] : null;
    case 'new_name': return has('new_dentry') ? ['string', '__nfs_dname($new_dentry)'] : null;
    case 'new_filelen': return has('new_dentry') ? ['long', '$new_dentry->d_name->len'] : null;
    case 'flag': return s.file ? ['long', `${s.file}->f_flags`] : null;
    case 'file': return s.file ? ['long', s.file] : null;
    case 'mode': return has('mode') ? ['long', '$mode'] : I ? ['long', `${I}->i_mode`] : null;
    case 'flags': return has('flags') ? ['long', '$flags'] : null;
    case 'count': return has('count') ? ['long', '$count'] : has('cnt') ? ['long', '$cnt'] : has('len') ? ['long', '$len'] : null;
    case 'size': return has('count') ? ['long', '$count'] : has('cnt') ? ['long', '$cnt'] : has('len') ? ['long', '$len'] : null;
    case 'offset': case 'pos': return has('offset') ? ['long', '$offset'] : has('pos') ? ['long', '$pos'] : null;
    case 'len': return has('len') ? ['long', '$len'] : null;
    case 'vlen': return has('vlen') ? ['long', '$vlen'] : null;
    case 'vec': return has('vec') ? ['long', '$vec'] : null;
    case 'page_index': return has('page') ? ['long', '$page->index'] : null;
    case '__page': return has('page') ? ['long', '$page'] : null;
    case 'units': return ['string', `"${p.has('page') || p.has('wbc') || p.has('pages') ? 'pages' : 'bytes'}"`];
    // the RPC client of an NFS inode or an rpc_task / rpc_clnt
    case 'server_ip': return C ? ['string', `__rpc_server_ip(${C})`] : null;
    case 'prot': case 'proto': return R ? ['long', `${R}->rq_prot`] : C ? ['long', `prot_from_clnt(${C})`] : null;
    case 'version': case 'vers': return R ? ['long', `${R}->rq_vers`] : C ? ['long', `vers_from_clnt(${C})`] : null;
    case 'prog': return R ? ['long', `${R}->rq_prog`] : C ? ['long', `prog_from_clnt(${C})`] : null;
    case 'port': return C ? ['long', `port_from_clnt(${C})`] : null;
    case 'xid': return C ? ['long', `xid_from_clnt(${C})`] : null;
    case 'servername': return C ? ['string', `kernel_string(@cast(${C}, "rpc_clnt", "kernel:sunrpc")->cl_xprt->servername, "")`] : null;
    case 'progname': return C ? ['string', `kernel_string(@cast(${C}, "rpc_clnt", "kernel:sunrpc")->cl_program->name, "")`] : null;
    case 'client': return C ? ['long', C] : null;
    case 'proc': return has('msg') && isPtr(p.get('msg'), 'rpc_message') ? ['long', 'proc_from_msg($msg)'] : null;
    case 'procname': return has('msg') && isPtr(p.get('msg'), 'rpc_message') ? ['string', 'kernel_string($msg->rpc_proc->p_name, "NULL")'] : null;
    case 'tk_pid': return s.task ? ['long', `${s.task}->tk_pid`] : null;
    case 'tk_flags': return s.task ? ['long', `${s.task}->tk_flags`] : null;
    case 'tk_priority': return s.task ? ['long', `${s.task}->tk_priority`] : null;
    case 'tk_runstate': return s.task ? ['long', `${s.task}->tk_runstate`] : null;
    // an nfsd request
    case 'client_ip': return R ? ['string', `addr_from_rqst_str(${R})`] : null;
    case 'uid': return R ? ['long', `${R}->rq_cred->cr_uid->val`] : null;
    case 'gid': return R ? ['long', `${R}->rq_cred->cr_gid->val`] : null;
    case 'rq_xid': return R ? ['long', `${R}->rq_xid`] : null;
    case 'rq_prog': return R ? ['long', `${R}->rq_prog`] : null;
    case 'rq_vers': return R ? ['long', `${R}->rq_vers`] : null;
    case 'rq_proc': return R ? ['long', `${R}->rq_proc`] : null;
    case 'rq_prot': return R ? ['long', `${R}->rq_prot`] : null;
    case 'fh': return s.fhp ? ['long', s.fhp] : null;
    case 'retvalue': case 'status': return ret ? ['long', '$return'] : null;
    case 'retstr': return ret ? ['string', 'return_str(1, $return)'] : null;
    default: return null;
  }
}

/**
 * stap 4.8's private aliases (`@__private30`) under sunrpc.clnt.create_client[.return]: the dump of
 * probe aliases leaves them out, so their points are given here (the names and points of
 * linux/rpc.stp; the variables computed here from 6.1's rpc_new_client(args, xps, xprt, parent)
 * and stdlib/nfs_helpers.stp).  rpc_create_client() is gone since 2.6.19: its `?` points match nothing.
 */
const CREATE_CLIENT_VARS = [
  'servername = __rpc_format_servername($args->servername, $args->address)',
  'progname = kernel_string($args->program->name)',
  'prog = $args->prognumber',
  'vers = vers_from_prog($args->program, $args->version)',
  'authflavor = $args->authflavor',
  'prot = $xprt->prot',
  'port = port_from_xprt($xprt)',
];
const PRIVATE_ALIASES: [string, string, string[]][] = [
  ['_sunrpc.clnt.create_client.rpc_new_client_inline', 'kernel.function("rpc_new_client").inline!, module("sunrpc").function("rpc_new_client").inline', CREATE_CLIENT_VARS],
  ['_sunrpc.clnt.create_client.rpc_new_client', 'kernel.function("rpc_new_client").call!, module("sunrpc").function("rpc_new_client").call?', CREATE_CLIENT_VARS],
  ['_sunrpc.clnt.create_client.rpc_create_client', 'kernel.function("rpc_create_client")!, module("sunrpc").function("rpc_create_client")?', []],
  ['_sunrpc.clnt.create_client.return.rpc_create', 'kernel.function("rpc_create").return!, module("sunrpc").function("rpc_create").return', []],
  ['_sunrpc.clnt.create_client.return.rpc_new_client', 'kernel.function("rpc_new_client").return!, module("sunrpc").function("rpc_new_client").return?', []],
  ['_sunrpc.clnt.create_client.return.rpc_create_client', 'kernel.function("rpc_create_client").return!, module("sunrpc").function("rpc_create_client").return?', []],
];
/** Bodies of aliases made of the private ones (their variables come from those). */
const OUTER_BODIES: Record<string, string[]> = {
  'sunrpc.clnt.create_client': ['name = "sunrpc.clnt.create_client"',
    'argstr = sprintf("%s %s %d %d %d %d %d", servername, progname, prog, vers, prot, port, authflavor)'],
  'sunrpc.clnt.create_client.return': ['name = "sunrpc.clnt.create_client.return"', 'retstr = return_str(2, $return)'],
};

/** The aliases stdlib files written by hand define as 4.8 does (stdlib/nfsd_proc3.stp): not generated. */
const HAND_WRITTEN = ['nfsd_proc3.stp'];
const handWritten = new Set(HAND_WRITTEN.flatMap((f) =>
  [...fs.readFileSync(path.join(OUT, f), 'utf8').matchAll(/^probe (\S+) =/gm)].map((m) => m[1])));

function main(): void {
  const text = fs.readFileSync(DATA, 'utf8');
  const aliases: Alias[] = [];
  const listing = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('L ')) {
      const sp = line.indexOf(' ', 2);
      listing.set(sp < 0 ? line.slice(2) : line.slice(2, sp), sp < 0 ? '' : line.slice(sp + 1));
      continue;
    }
    const i = line.indexOf(' = ');
    aliases.push({ name: line.slice(0, i), points: line.slice(i + 3) });
  }
  const files: Record<string, string[]> = { nfs: [], nfsd: [], sunrpc: [] };
  const head: Record<string, string> = {
    nfs: 'nfs.*: the NFS client (modules nfs, nfsv2, nfsv3, nfsv4)',
    nfsd: 'nfsd.*: the NFS server (module nfsd)',
    sunrpc: 'sunrpc.*: the RPC layer (module sunrpc)',
  };
  let vars = 0, missing = 0;
  for (const a of aliases) {
    const fam = a.name.replace(/^_+/, '').split('.')[0];
    const out = files[fam];
    if (!out || handWritten.has(a.name)) continue;
    const ret = a.name.endsWith('.return');
    const internal = a.name.startsWith('_');
    const direct = /(^|, )(kernel|module|kprobe)[.(]/.test(a.points);
    const body: string[] = [];
    const listed = listing.get(a.name);
    // the variables belong to the aliases on functions; those made of other aliases get theirs from them
    if (!internal && direct) {
      const p = paramsOf(listed, a.points);
      const s = sources(p);
      const wanted = listed !== undefined
        ? listed.split(' ').filter((v) => v && !v.startsWith('$')).map((v) => v.slice(0, v.indexOf(':')))
        : ['name', ret ? 'retstr' : 'argstr'];
      const shown: [string, string, string][] = [];
      for (const v of wanted) {
        if (v === 'name') { body.push(`name = "${a.name}"`); continue; }
        if (v === 'argstr') continue;
        const r = rule(v, p, s, ret);
        if (!r) { missing++; continue; }
        vars++;
        body.push(`${v} = ${r[1]}`);
        if (!['units', 'retstr', 'retvalue', 'status', '__page', '_entry_tvar_tid'].includes(v)) shown.push([v, r[0], r[1]]);
      }
      if (wanted.includes('argstr')) {
        const parts = shown.slice(0, 6);
        body.push(parts.length
          ? `argstr = sprintf("${parts.map(([v, t]) => `${v}=${t === 'string' ? '%s' : '%d'}`).join(' ')}", ${parts.map(([v]) => v).join(', ')})`
          : 'argstr = ""');
      }
      if (!wanted.includes('name')) body.unshift(`name = "${a.name}"`);
    }
    body.push(...(OUTER_BODIES[a.name] ?? []));
    out.push(`probe ${a.name} = ${a.points}\n{${body.length ? '\n' + body.map((b) => '  ' + b).join('\n') + '\n' : ' '}}`);
  }
  for (const [name, points, body] of PRIVATE_ALIASES) {
    files.sunrpc.push(`probe ${name} = ${points}\n{${body.length ? '\n' + body.map((b) => '  ' + b).join('\n') + '\n' : ' '}}`);
  }
  const names: Record<string, string> = { nfs: 'nfs.stp', nfsd: 'nfsd.stp', sunrpc: 'rpc.stp' };
  for (const fam of Object.keys(files)) {
    fs.writeFileSync(path.join(OUT, names[fam]), [
      `// GENERATED by scripts/gen-nfs-tapsets.ts from stap 4.8's probe points: do not edit.`,
      `// ${head[fam]}; the simulated machine runs no NFS, so these never fire unless a path reaches them.`,
      '', ...files[fam], ''].join('\n'));
  }
  process.stdout.write(`${aliases.length} aliases; ${vars} variables computed, ${missing} left out\n`);
}

main();
