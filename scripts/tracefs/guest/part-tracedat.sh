# trace.dat files written by the real trace-cmd 3.1 (fixtures for the trace.dat reader). trace-cmd
# stores /proc/kallsyms whole (megabytes); here it runs in a private mount namespace where
# /proc/kallsyms is a bind mount of the few lines the traced functions need, so the files stay small.
grep -E ' (vfs_read|ksys_read|__x64_sys_read|do_syscall_64|rw_verify_area|security_file_permission|ext4_file_read_iter|filemap_read|entry_SYSCALL_64_after_hwframe|_stext|_etext)$' /proc/kallsyms > /tmp/ks
tcrec() { # tcrec OUT [OPTIONS...]: record vfs_read calls and sched_switch around `cat /etc/hostname`
  o=$1; shift
  unshare -m sh -c "mount --bind /tmp/ks /proc/kallsyms && cd /tmp && trace-cmd record $* -p function -l vfs_read -e sched:sched_switch -o $o cat /etc/hostname" > /tmp/tcrec.log 2>&1
}
tcrec /tmp/v6.dat --file-version 6
cap tc_v6_record 'cat /tmp/tcrec.log; ls -l /tmp/v6.dat | cut -d" " -f5'
capf tc_v6.dat /tmp/v6.dat
tcrec /tmp/v7n.dat --compression none
cap tc_v7none_record 'cat /tmp/tcrec.log; ls -l /tmp/v7n.dat | cut -d" " -f5'
capf tc_v7none.dat /tmp/v7n.dat
tcrec /tmp/v7z.dat
cap tc_v7zstd_record 'cat /tmp/tcrec.log; ls -l /tmp/v7z.dat | cut -d" " -f5'
capf tc_v7zstd.dat /tmp/v7z.dat
