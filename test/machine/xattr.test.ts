/**
 * fs/xattr.ts: extended attributes as xattr(7) and fs/xattr.c describe them.  A Debian 12 install has
 * none (no SELinux labels, no ACLs): ls -l's lgetxattr(security.selinux) and getxattr(system.posix_acl_*)
 * get ENODATA (data/recordings/ls-l.json.gz); set ones come back, size 0 asks for the length, a short
 * buffer is ERANGE, proc files support none.
 */
import { expect } from 'chai';
import { Machine } from '../../src/machine/machine';
import type { U } from '../../src/machine/process/user';
import type { Prog } from '../../src/machine/include/sched';

describe('fs/xattr: extended attributes', function () {
  this.timeout(60000);
  it('ENODATA without attributes; set, get (length, ERANGE), list, remove; ENOENT; EOPNOTSUPP on proc', () => {
    const m = new Machine({ seed: 3 });
    const res: Record<string, unknown> = {};
    m.fs.createFile('/usr/bin/xa', 'ELF', 0o755);
    m.procs.programs.set('/usr/bin/xa', function* (u: U): Prog {
      res.selinux = (yield* u.sys('lgetxattr', ['/etc/passwd', 'security.selinux', 0, 255])).ret;
      res.acl = (yield* u.sys('getxattr', ['/etc', 'system.posix_acl_default', 0, 0])).ret;
      res.set = (yield* u.sys('setxattr', ['/tmp', 'user.note', 0, 5, 0], { buf: Buffer.from('hello') })).ret;
      res.create = (yield* u.sys('setxattr', ['/tmp', 'user.note', 0, 2, 1], { buf: Buffer.from('hi') })).ret;
      res.len = (yield* u.sys('getxattr', ['/tmp', 'user.note', 0, 0])).ret;
      res.short = (yield* u.sys('getxattr', ['/tmp', 'user.note', 0, 2])).ret;
      const g = yield* u.sys('getxattr', ['/tmp', 'user.note', 0, 64]);
      res.value = Buffer.from(g.data ?? []).toString();
      res.list = (yield* u.sys('listxattr', ['/tmp', 0, 0])).ret;
      res.remove = (yield* u.sys('removexattr', ['/tmp', 'user.note'])).ret;
      res.gone = (yield* u.sys('getxattr', ['/tmp', 'user.note', 0, 0])).ret;
      res.missing = (yield* u.sys('lgetxattr', ['/nonexistent', 'security.selinux', 0, 255])).ret;
      res.proc = (yield* u.sys('getxattr', ['/proc/uptime', 'user.x', 0, 0])).ret;
      return 0;
    });
    expect(m.run('xa').status).to.equal(0);
    expect(res).to.deep.equal({
      selinux: -61, acl: -61, set: 0, create: -17, len: 5, short: -34, value: 'hello', list: 10, remove: 0, gone: -61, missing: -2, proc: -95,
    });
  });
});
