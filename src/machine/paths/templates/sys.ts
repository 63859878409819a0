/** System call bodies (entered from the `syscall` wrapper's %sys hook) and the I/O paths they use. */

const fdget = `
__fdget_pos
  __fget_light
`;

/** the permission check, the file's write (%write_dispatch) and the fsnotify event of vfs_write and vfs_writev */
const writeChecked = `      rw_verify_area
        security_file_permission
          apparmor_file_permission
      %write_dispatch
      __fsnotify_parent
      fsnotify
`;

/** vfs_fsync_range of fsync(2) and fdatasync(2) */
const fsyncBody = `  vfs_fsync_range
    ext4_sync_file
      file_write_and_wait_range
        __filemap_fdatawrite_range
          filemap_fdatawrite_wbc
            do_writepages
              ext4_writepages
                mpage_prepare_extent_to_map
                  %wb_prepare
                %writeback
            blk_finish_plug
              __blk_flush_plug
                blk_mq_flush_plug_list
                  *blk_dispatch
            %wb_wait
        file_check_and_advance_wb_err
      jbd2_complete_transaction
        jbd2_log_start_commit
          %jbd2_kick
`;
export const sysPaths: Record<string, string> = {
  sys_read: `
__x64_sys_read
  ksys_read
    ${'*fdget'}
    vfs_read
      rw_verify_area
        security_file_permission
          apparmor_file_permission
      %read_dispatch
      __fsnotify_parent
      fsnotify
`,
  fdget,
  sys_pread64: `
__x64_sys_pread64
  ksys_pread64
    __fget_light
    vfs_read
      rw_verify_area
        security_file_permission
          apparmor_file_permission
      %read_dispatch
      __fsnotify_parent
      fsnotify
`,
  sys_write: `
__x64_sys_write
  ksys_write
    *fdget
    vfs_write
${writeChecked}`,
  // writev(fd, iov, n): the iovec imported, then the write as write(2)'s (a socket: sock_write_iter)
  sys_writev: `
__x64_sys_writev
  do_writev
    *fdget
    vfs_writev
      import_iovec
        __import_iovec
${writeChecked}`,
  sys_pwrite64: `
__x64_sys_pwrite64
  ksys_pwrite64
    __fget_light
    vfs_write
      rw_verify_area
        security_file_permission
      %write_dispatch
      fsnotify
`,
  // ----- file read paths (pushed by %read_dispatch)
  read_filemap: `
?blkdev
  blkdev_read_iter
    filemap_read
      %read_batches
      touch_atime
        atime_needs_update
?ext4file
  ext4_file_read_iter
    generic_file_read_iter
      filemap_read
        %read_batches
        touch_atime
          atime_needs_update
?othfile
  generic_file_read_iter
    filemap_read
      %read_batches
      touch_atime
        atime_needs_update
`,
  filemap_batch: `
filemap_get_pages
  filemap_get_read_batch
  ?pc_miss
    page_cache_sync_ra
      ondemand_readahead
        page_cache_ra_order
          page_cache_ra_unbounded
            %ra_alloc
            read_pages
              blk_start_plug
              %ra_submit
              blk_finish_plug
                __blk_flush_plug
                  blk_mq_flush_plug_list
                    *blk_dispatch
    filemap_get_read_batch
  ?pc_async
    page_cache_async_ra
      ondemand_readahead
        page_cache_ra_order
          page_cache_ra_unbounded
            %ra_alloc
            read_pages
              blk_start_plug
              %ra_submit
              blk_finish_plug
                __blk_flush_plug
                  blk_mq_flush_plug_list
                    *blk_dispatch
  ?pc_locked
    __folio_lock_killable
      folio_wait_bit_common
        %wait_io
%copy_pages
`,
  copy_page: `
folio_mark_accessed
copy_page_to_iter
  _copy_to_user
`,
  pc_add_folio: `
filemap_alloc_folio
  folio_alloc
    __folio_alloc
      __alloc_pages
        %new_page
        get_page_from_freelist
        @kmem:mm_page_alloc
filemap_add_folio
  __filemap_add_folio
    @filemap:mm_filemap_add_to_page_cache
  folio_add_lru
`,
  read_pipe: `
pipe_read
  _raw_spin_lock_irq
  %pipe_read
  __wake_up_common_lock
    __wake_up_common
`,
  pipe_wait: `
prepare_to_wait_event
*schedule
finish_wait
`,
  read_simple: `
%simple_read
`,
  read_seq: `
seq_read
  seq_read_iter
    %simple_read
`,
  // ----- write paths
  write_generic: `
?ext4file
  ext4_file_write_iter
    ext4_buffered_write_iter
      file_modified
        file_update_time
          generic_update_time
            __mark_inode_dirty
              ext4_dirty_inode
                *ext4_journal_start
                __ext4_mark_inode_dirty
                  ext4_reserve_inode_write
                    __ext4_journal_get_write_access
                      jbd2_journal_get_write_access
                  ext4_mark_iloc_dirty
                *ext4_journal_stop
      generic_perform_write
        %write_pages
        balance_dirty_pages_ratelimited
?othfile
  generic_perform_write
    %write_pages
    balance_dirty_pages_ratelimited
  file_update_time
    generic_update_time
`,
  // an O_DIRECT write to an ext4 file (the real guest's dd oflag=direct, data/recordings/dd-direct-write:
  // ext4_file_write_iter -> iomap_dio_rw -> __iomap_dio_rw, the bio submitted under the plug, then
  // the writer sleeps until the bio completes); fs/read_write.ts %dio_submit / %dio_wait
  write_direct: `
ext4_file_write_iter
  ext4_dio_alignment
  ext4_generic_write_checks
    generic_write_checks
  file_modified
  iomap_dio_rw
    __iomap_dio_rw
      kmalloc_trace
      filemap_write_and_wait_range
      invalidate_inode_pages2_range
      blk_start_plug
      iomap_iter
        ext4_iomap_begin
          ext4_map_blocks
            ext4_es_lookup_extent
      iomap_dio_bio_iter
        bio_alloc_bioset
        bio_iov_iter_get_pages
        iomap_dio_submit_bio
          %dio_submit
      iomap_iter
        ext4_iomap_end
      blk_finish_plug
        __blk_flush_plug
          blk_mq_flush_plug_list
            *blk_dispatch
      %dio_wait
      iomap_dio_complete
`,
  ext4_journal_start: `
__ext4_journal_start_sb
  jbd2__journal_start
    start_this_handle
`,
  ext4_journal_stop: `
__ext4_journal_stop
  jbd2_journal_stop
`,
  write_page: `
?ext4file
  ext4_da_write_begin
    ext4_nonda_switch
    __filemap_get_folio
    __block_write_begin
      ext4_da_get_block_prep
        ext4_es_lookup_extent
        ext4_da_reserve_space
        ext4_es_insert_delayed_block
  copy_page_from_iter_atomic
  ext4_da_write_end
    block_write_end
      __block_commit_write.constprop.0.isra.0
        mark_buffer_dirty
          folio_mark_dirty
            filemap_dirty_folio
              __folio_mark_dirty
              @writeback:writeback_dirty_folio
?othfile
  *write_page_simple
`,
  write_page_simple: `
simple_write_begin
  pagecache_get_page
copy_page_from_iter_atomic
simple_write_end
  folio_mark_dirty
    filemap_dirty_folio
      __folio_mark_dirty
      @writeback:writeback_dirty_folio
  __mark_inode_dirty
`,
  write_pipe: `
pipe_write
  %pipe_write
  __wake_up_common_lock
    __wake_up_common
`,
  // fs/pipe.c pipe_write: a page for a pipe buffer (alloc_page(GFP_HIGHUSER | __GFP_ACCOUNT), charged to
  // the writer's memcg), then the buffer is inserted under rd_wait.lock (tar-gzip's recorded pipe_write trees)
  pipe_buf_alloc: `
alloc_pages
  policy_nodemask
  policy_node
  __alloc_pages
    __cond_resched
    should_fail_alloc_page
    get_page_from_freelist
      _raw_spin_trylock
      ?pcp_refill
        rmqueue_bulk
          _raw_spin_lock_irqsave
          %pcp_refill_pages
          __mod_zone_page_state
          _raw_spin_unlock_irqrestore
      _raw_spin_unlock
    __memcg_kmem_charge_page
      __rcu_read_lock
      __get_obj_cgroup_from_memcg
        __rcu_read_lock
        __rcu_read_unlock
      __rcu_read_unlock
      __rcu_read_lock
      __rcu_read_lock
      __rcu_read_unlock
      __rcu_read_unlock
      try_charge_memcg
      memcg_account_kmem
        __mod_memcg_state
          __cgroup_rstat_updated
      __rcu_read_lock
      __rcu_read_unlock
    @kmem:mm_page_alloc
_raw_spin_lock_irq
_raw_spin_unlock_irq
`,
  // mm/page_alloc.c rmqueue_bulk's page taken off the buddy lists for the per-CPU list (pushed pcp->batch
  // times by %pcp_refill_pages: mm/page_alloc.ts)
  pcp_refill_page: `
@kmem:mm_page_alloc_zone_locked
check_new_pages
`,
  // fs/pipe.c pipe_read: a buffer read to its end is released (anon_pipe_buf_release): its page kept as
  // the pipe's tmp_page when there is none, else put (uncharged, freed to the CPU's list)
  pipe_buf_keep: `
anon_pipe_buf_release
`,
  pipe_buf_free: `
anon_pipe_buf_release
  __folio_put
    __mem_cgroup_uncharge
      uncharge_folio
        __rcu_read_lock
        __rcu_read_lock
        __rcu_read_unlock
        __rcu_read_unlock
        __rcu_read_lock
        __rcu_read_unlock
        __rcu_read_lock
        __rcu_read_unlock
        __rcu_read_lock
        __rcu_read_unlock
      uncharge_batch
        page_counter_uncharge
          propagate_protected_usage
          propagate_protected_usage
          propagate_protected_usage
        memcg_account_kmem
          __mod_memcg_state
            __cgroup_rstat_updated
        __count_memcg_events
          __cgroup_rstat_updated
        memcg_check_events
        __rcu_read_lock
        __rcu_read_unlock
    free_unref_page
      free_pcp_prepare
        @kmem:mm_page_free
      _raw_spin_trylock
      free_unref_page_commit
        %pcp_free
      _raw_spin_unlock
`,
  write_tty: `
file_tty_write.constprop.0
  n_tty_write
    %simple_write
`,
  write_simple: `
%simple_write
`,
  // /dev/zero and /dev/null (drivers/char/mem.c): read_zero clears the user buffer (clear_user:
  // clear_user_rep_good on the recorded CPU, rep_good without erms, machine/kernel/cpu.ts; where a
  // profile of dd if=/dev/zero spends its time, as perf on the real guest shows it) a page at a time,
  // calling cond_resched after each (%zero_resched: read_zero(__cond_resched*16) for each 64 KiB read
  // in data/recordings/dd-write), write_null returns the count without touching the data
  read_zero: `
read_zero
  %kfault_buffer
  clear_user_rep_good
    %simple_read
  %zero_resched
`,
  cond_resched: `
__cond_resched
`,
  write_null: `
write_null
  %simple_write
`,
  // ----- open/close/stat/dirs
  walk_component: `
walk_component
  lookup_fast
    __d_lookup_rcu
`,
  sys_close: `
__x64_sys_close
  close_fd
    filp_close
      %close
      fput
`,
  close_file: `
task_work_run
  ____fput
    __fput
      ?sock_release
        %sock_release_pop
        *sock_close
      dput
      kmem_cache_free
        @kmem:kmem_cache_free
`,
  sys_newfstatat: `
__x64_sys_newfstatat
  vfs_fstatat
    vfs_statx
      getname_flags
      %walk
      %stat
      generic_fillattr
  cp_new_stat
`,
  sys_getdents64: `
__x64_sys_getdents64
  __fget_light
  iterate_dir
    dcache_readdir
      %impl
      filldir64
`,
  sys_mkdirat: `
__x64_sys_mkdirat
  do_mkdirat
    getname_flags
    filename_create
      %walk
    vfs_mkdir
      %impl
`,
  sys_unlinkat: `
__x64_sys_unlinkat
  do_unlinkat
    getname_flags
    %walk
    vfs_unlink
      %impl
      d_delete
`,
  sys_renameat2: `
__x64_sys_renameat2
  do_renameat2
    %walk
    vfs_rename
      %impl
`,
  sys_chdir: `
__x64_sys_chdir
  getname_flags
  %walk
  set_fs_pwd
    %impl
`,
  // fsync and fdatasync (do_fsync(fd, datasync)): ext4_sync_file; the journal's %jbd2_kick tells them apart
  sys_fsync: `
__x64_sys_fsync
${fsyncBody}`,
  sys_fdatasync: `
__x64_sys_fdatasync
${fsyncBody}`,
  blk_plug_flush: `
blk_finish_plug
  __blk_flush_plug
    blk_mq_flush_plug_list
      *blk_dispatch
`,
  jbd2_commit: `
kjournald2
  jbd2_journal_commit_transaction
    jbd2_journal_switch_revoke_table
    jbd2_journal_get_descriptor_buffer
    jbd2_journal_write_metadata_buffer
    jbd2_descriptor_block_csum_set
    %jbd2_commit
    jbd2_journal_file_buffer
    submit_bh
  %jbd2_sleep
`,
  writeback_issue: `
do_writepages
  ext4_writepages
    mpage_prepare_extent_to_map
      %wb_prepare
    %writeback
blk_finish_plug
  __blk_flush_plug
    blk_mq_flush_plug_list
      *blk_dispatch
%wb_wait
`,
  // ----- time, processes, signals
  sys_clock_nanosleep: `
__x64_sys_clock_nanosleep
  common_nsleep
    hrtimer_nanosleep
      do_nanosleep
        hrtimer_start_range_ns
          @timer:hrtimer_start
        %nanosleep
`,
  unmap_pages: `
unmap_vmas
  %unmap
tlb_finish_mmu
  tlb_flush_mmu
    tlb_batch_pages_flush
      free_pages_and_swap_cache
        %free_swap_cache
        release_pages
          @kmem:mm_page_free_batched
`,
  free_swap_cache: `
free_swap_cache
`,
  sys_kill: `
__x64_sys_kill
  kill_something_info
    %kill_find
    ?sigtarget
      kill_pid_info
        group_send_sig_info
          check_kill_permission
          do_send_sig_info
            send_signal_locked
              *send_signal_locked
`,
  // the signal queued on its target (kill(2), do_notify_parent's SIGCHLD)
  send_signal_locked: `
__send_signal_locked
  %sig_send
  @signal:signal_generate
  ?sigqueued
    complete_signal
      signal_wake_up_state
        %sig_wake
`,
  sys_munmap: `
__x64_sys_munmap
  __vm_munmap
    do_mas_munmap
      do_mas_align_munmap
        unmap_region
          *unmap_pages
`,
  sys_perf_event_open: `
__x64_sys_perf_event_open
  %impl
`,
  sys_ioctl: `
__x64_sys_ioctl
  %impl
`,
  sys_generic: `
%impl
`,
  signal_deliver: `
@signal:signal_deliver
`,
};
