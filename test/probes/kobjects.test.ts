import { expect } from 'chai';
import { compile } from '../translate/pipeline';
import { resetKernel, stapOnMachine, Session } from './helpers';

/** As `stap --seed N -c CMD SCRIPT`, without the command's own output. */
const stapC = (script: string, cmd: string, seed = 1): Promise<Session> => stapOnMachine(compile(script), cmd, { seed, commandOutput: false });

describe('probes: objects the kernel paths create (issue 6)', () => {
  afterEach(resetKernel);

  it('vfs_open gets the struct file alloc_empty_file returned; fd_install gets the same file', async () => {
    // only inside openat(2): the command's execve opens its binary and ld.so through the same
    // functions first (do_open_execat -> do_filp_open -> vfs_open, the recorded exec tree)
    const r = await stapC(`
global alloc, opened
global inopen
probe kernel.function("do_sys_openat2") { if (pid() == target()) inopen = 1 }
probe kernel.function("do_sys_openat2").return { if (pid() == target()) inopen = 0 }
probe kernel.function("alloc_empty_file").return { if (pid() == target() && inopen) alloc = $return }
probe kernel.function("vfs_open") {
  if (pid() == target() && inopen) {
    opened = $file
    printf("vfs_open same=%d flags=%x mode=%d path=%s\\n", $file == alloc, $file->f_flags, $file->f_mode, kernel_string($path->dentry->d_name->name))
  }
}
probe kernel.function("do_dentry_open") {
  if (pid() == target() && inopen) printf("do_dentry_open same=%d f_path=%s ino=%d\\n", $f == opened, kernel_string($f->f_path->dentry->d_name->name), $inode->i_ino)
}
probe kernel.function("fd_install") {
  if (pid() == target() && inopen) printf("fd_install %d same=%d %s\\n", $fd, $file == opened, kernel_string($file->f_path->dentry->d_name->name))
}
probe kernel.function("do_filp_open").return { if (pid() == target() && inopen) printf("do_filp_open same=%d\\n", $return == opened) }
`, 'cat /etc/hostname');
    expect(r.err).to.equal('');
    // cat's own open (ld.so opened /etc/ld.so.cache and libc.so.6 first, O_CLOEXEC)
    const all = r.out.trim().split('\n');
    expect(all[0]).to.equal('vfs_open same=1 flags=80000 mode=1 path=ld.so.cache');
    const lines = all.slice(all.indexOf('vfs_open same=1 flags=0 mode=1 path=hostname'));
    expect(lines[0]).to.equal('vfs_open same=1 flags=0 mode=1 path=hostname');
    expect(lines[1]).to.match(/^do_dentry_open same=1 f_path=hostname ino=\d+$/);
    expect(lines[1]).to.not.match(/ino=0$/);
    expect(lines[2]).to.equal('do_filp_open same=1');
    expect(lines[3]).to.equal('fd_install 3 same=1 hostname');
  });

  it('a failed open: do_filp_open returns ERR_PTR(-ENOENT), vfs_open is not called', async () => {
    const r = await stapC(`
global inopen
probe kernel.function("do_sys_openat2") { if (pid() == target()) inopen = 1 }
probe kernel.function("do_sys_openat2").return { if (pid() == target()) inopen = 0 }
probe kernel.function("do_filp_open").return { if (pid() == target() && inopen) printf("ret %d\\n", $return) }
probe kernel.function("vfs_open") { if (pid() == target() && inopen) println("vfs_open") }
`, 'cat /nonexistent');
    // ld.so's opens (ld.so.cache, libc.so.6) succeed first: vfs_open, then do_filp_open's file
    const lines = r.out.trim().split('\n');
    expect(lines.slice(-2)[0]).to.match(/^ret -?\d+$/).and.not.equal('ret -2');
    expect(lines.slice(-1)).to.deep.equal(['ret -2']);
  });

  it('getname and kmem_cache_alloc return the struct filename; the tracepoint sees the same object', async () => {
    const r = await stapC(`
global tp
global inopen
probe kernel.function("do_sys_openat2") { if (pid() == target()) inopen = 1 }
probe kernel.function("do_sys_openat2").return { if (pid() == target()) inopen = 0 }
probe kernel.trace("kmem_cache_alloc") { if (pid() == target() && inopen) tp[kernel_string($s->name)] = $ptr }
probe kernel.function("kmem_cache_alloc").return { if (pid() == target() && inopen) printf("kmem_cache_alloc %d\\n", $return != 0) }
probe kernel.function("getname").return {
  if (pid() == target() && inopen) printf("getname %s same=%d\\n", kernel_string($return->name), $return == tp["names_cache"])
}
probe kernel.function("alloc_empty_file").return { if (pid() == target() && inopen) printf("filp same=%d\\n", $return == tp["filp"]) }
`, 'cat /etc/hostname');
    expect(r.err).to.equal('');
    // the open's two slab objects, in this order (the recorded paths of the other syscalls allocate
    // from other caches too: every kmem_cache_alloc returns an object)
    // (ld.so's opens of /etc/ld.so.cache and libc.so.6 come first, the same way)
    // (the recorded path_openat: alloc_empty_file's __alloc_file allocates the struct file, then
    // security_file_alloc the LSM blob: two kmem_cache_alloc returns before alloc_empty_file's)
    expect(r.out).to.match(/kmem_cache_alloc 1\ngetname \/etc\/ld.so.cache same=1\nkmem_cache_alloc 1\n(kmem_cache_alloc 1\n)?filp same=1\n/);
    expect(r.out).to.match(/\nkmem_cache_alloc 1\ngetname \/etc\/hostname same=1\nkmem_cache_alloc 1\n(kmem_cache_alloc 1\n)?filp same=1\n/);
    expect(r.out).to.not.match(/same=0|kmem_cache_alloc 0/);
  });

  it('__kmalloc: load_elf_binary\'s kmalloc users on exec, kmem:kmalloc with the same buffers', async () => {
    const r = await stapC(`
global ptrs
probe kernel.trace("kmalloc") { if (pid() == target()) { ptrs[$ptr] = 1; printf("kmalloc %d %d %s\\n", $bytes_req, $bytes_alloc, symname($call_site)) } }
probe kernel.function("__kmalloc").return { if (pid() == target()) printf("ret known=%d caller=%s\\n", $return in ptrs, symname(caller_addr())) }
`, 'ls /');
    expect(r.err).to.equal('');
    // the recorded exec also allocates elsewhere (alloc_bprm, security_prepare_creds, tomoyo ...) and
    // load_elf_binary's kmalloc_trace fires kmem:kmalloc without __kmalloc: the loader's __kmalloc
    // calls, in order, each with the tracepoint for the same buffer right before
    const lines = r.out.split('\n');
    const loader = lines.filter((l, i) => /caller=load_elf/.test(l) || (/^kmalloc .* load_elf/.test(l) && /^ret /.test(lines[i + 1] ?? '')));
    expect(loader).to.deep.equal([
      'kmalloc 728 1024 load_elf_phdrs', 'ret known=1 caller=load_elf_phdrs',
      'kmalloc 28 32 load_elf_binary', 'ret known=1 caller=load_elf_binary',
      'kmalloc 616 1024 load_elf_phdrs', 'ret known=1 caller=load_elf_phdrs',
    ]);
  });

  it('__alloc_pages returns the struct page the mm_page_alloc tracepoint reports', async () => {
    const r = await stapC(`
global tp, n, same
probe kernel.trace("mm_page_alloc") { tp = $page }
probe kernel.function("__alloc_pages").return { n++; same += ($return == tp && $return != 0 && $return->_refcount->counter == 1) }
probe end { printf("%d %d\\n", n > 0, n == same) }
`, 'cat /usr/bin/ls');
    expect(r.err).to.equal('');
    expect(r.out.slice(-4)).to.equal('1 1\n');
  });

  it('-c CMD without shell syntax: stapio forks and the child execs CMD (execve, sched_process_exec)', async () => {
    const r = await stapC(`
probe syscall.execve { if (pid() == target()) printf("execve %s %s\\n", execname(), filename) }
probe kprocess.exec { if (pid() == target()) printf("kprocess.exec %s\\n", filename) }
probe kernel.trace("sched_process_exec") { if (pid() == target()) printf("sched_process_exec %s pid=%d\\n", execname(), $p->pid == target()) }
probe kprocess.exec_complete { if (pid() == target()) printf("exec_complete %s %d\\n", execname(), success) }
`, 'ls /');
    expect(r.err).to.equal('');
    expect(r.out).to.equal('execve stapio "/usr/bin/ls"\nkprocess.exec /usr/bin/ls\nsched_process_exec ls pid=1\nexec_complete ls 1\n');
  });

  it('timer.profile is the perf cpu_clock alternative: every CPU each 1 ms, idle included, in the interrupted task\'s context', async () => {
    const r = await stapC(`
global prof, cpus, dd, idle
probe timer.profile { prof++; cpus[cpu()]++; if (execname() == "dd") dd = 1; if (pid() == 0) idle = 1 }
probe end {
  same = 1
  foreach (c in cpus) if (cpus[c] != prof / 4) same = 0
  printf("%d %d %d %d\\n", prof > 0 && prof % 4 == 0, same, dd, idle)
}
`, 'dd if=/dev/zero of=/tmp/x bs=4096 count=20000');
    expect(r.err).to.equal('');
    expect(r.out.trim().split('\n').pop()).to.equal('1 1 1 1');
  });
});
