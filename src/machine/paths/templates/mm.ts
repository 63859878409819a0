/** Memory management paths: page faults (anon, file, COW, swap-in), reclaim (kswapd), swap out, swapon. */

export const mmPaths: Record<string, string> = {
  // a user page fault: exc_page_fault (noinstr: not traced) fires page_fault_user, then the tree the
  // real kernel ran for a fault of this kind (entry model key 'fault', chosen by paths/entry.ts's
  // features: anon, file, cow, wp, swap), whose last call is the mmap_read_unlock (up_read) that traces
  // mmap_lock_released; %fault (mm/fault.ts) applies the page's new state.  Then the return to user
  // mode (irqentry_exit -> irqentry_exit_to_user_mode, noinstr): exit_to_user_mode_prepare, as after a
  // syscall (every fault entry of the recordings ends in exit_to_user_mode_prepare(fpregs_assert_state_consistent))
  page_fault: `
@exceptions:page_fault_user
?fault_swap
  %swapin_wait
&fault
@mmap_lock:mmap_lock_released
%fault
?reclaim
  *direct_reclaim
*exit_to_user
`,
  direct_reclaim: `
__alloc_pages_slowpath.constprop.0
  wake_all_kswapds
    wakeup_kswapd
      @vmscan:mm_vmscan_wakeup_kswapd
      %wake_kswapd
`,
  kswapd_run: `
kswapd
  @vmscan:mm_vmscan_kswapd_wake
  balance_pgdat
    shrink_node
      shrink_lruvec
        shrink_active_list
        isolate_lru_folios
        shrink_folio_list
          %reclaim_batch
        @vmscan:mm_vmscan_lru_shrink_inactive
      shrink_slab
  %kswapd_sleep
`,
  swap_out_page: `
add_to_swap
  folio_alloc_swap
    get_swap_pages
      scan_swap_map_slots
        swap_range_alloc
  add_to_swap_cache
try_to_unmap
pageout
  swap_writepage
    __swap_writepage
      swap_page_sector
      submit_bio
        submit_bio_noacct
  @vmscan:mm_vmscan_write_folio
`,
  kworker_work: `
worker_thread
  process_one_work
    @workqueue:workqueue_execute_start
    vmstat_update
      refresh_cpu_vm_stats
    @workqueue:workqueue_execute_end
`,
  rcu_gp: `
rcu_gp_kthread
  rcu_gp_init
  rcu_gp_cleanup
`,
  drop_file_page: `
__remove_mapping
  __filemap_remove_folio
    @filemap:mm_filemap_delete_from_page_cache
`,
  swap_free_slots: `
swapcache_free_entries
  swap_range_free
`,
  sys_swapon: `
__x64_sys_swapon
  %walk
  swap_cgroup_swapon
  generic_swapfile_activate
    add_swap_extent
  _enable_swap_info
  %impl
  enable_swap_slots_cache
`,
  sys_swapoff: `
__x64_sys_swapoff
  %walk
  %impl
  swap_cgroup_swapoff
  destroy_swap_extents
`,
  writeback_work: `
wb_workfn
  @writeback:writeback_start
  wb_writeback
    __writeback_inodes_wb
      writeback_sb_inodes
        __writeback_single_inode
          do_writepages
            ext4_writepages
              mpage_prepare_extent_to_map
                %wb_prepare
              %writeback
  blk_finish_plug
    __blk_flush_plug
      blk_mq_flush_plug_list
        *blk_dispatch
  @writeback:writeback_written
`,
  // per-page writeback work of ext4_writepages and of the waits (mm/page_writeback.ts wb_prepare, writeback,
  // wb_wait), as data/recordings/dd-write's fsync of 1024 dirty pages ran it: a folio batch looked up by
  // tag (PAGEVEC_SIZE 15), each folio checked (mpage_prepare_extent_to_map), the batch released
  wb_lookup: `
pagevec_lookup_range_tag
  find_get_pages_range_tag
    __rcu_read_lock
    __rcu_read_unlock
`,
  wb_prepare_page: `
__cond_resched
wait_on_page_writeback
  folio_wait_writeback
mpage_process_page_bufs
`,
  wb_release: `
__pagevec_release
  release_pages
    __mem_cgroup_uncharge_list
    free_unref_page_list
__cond_resched
`,
  wb_get_folios: `
filemap_get_folios
  __rcu_read_lock
  __rcu_read_unlock
`,
  wb_put_folios: `
__pagevec_release
  release_pages
    __mem_cgroup_uncharge_list
    free_unref_page_list
`,
  // each page put under writeback and added to the bio (mpage_submit_page: its dirty bit cleared for I/O,
  // the memory cgroup's NR_FILE_DIRTY and NR_WRITEBACK moved, the folio unlocked)
  wb_submit_page: `
mpage_submit_page
  clear_page_dirty_for_io
    folio_clear_dirty_for_io
      folio_mapping
      inode_to_bdi
      folio_mkclean
        folio_mapped
      __rcu_read_lock
      *page_stat_mod
      __rcu_read_unlock
  ext4_bio_write_page
    set_page_writeback
      __folio_start_writeback
        folio_mapping
        folio_memcg_lock
          __rcu_read_lock
          folio_memcg_lock.part.0
        inode_to_bdi
        _raw_spin_lock_irqsave
        ?wb_untagged
          sb_mark_inode_writeback
            _raw_spin_lock_irqsave
            _raw_spin_unlock_irqrestore
        _raw_spin_unlock_irqrestore
        *page_stat_mod
        folio_memcg_unlock
          __rcu_read_unlock
    bio_add_page
      __bio_try_merge_page
    wbc_account_cgroup_owner
      mem_cgroup_css_from_page
    unlock_page
      folio_unlock
ext4_last_io_end_vec
`,
  // a page's node, zone and memory cgroup counter moved (NR_FILE_DIRTY, NR_WRITEBACK: __mod_lruvec_page_state)
  page_stat_mod: `
__mod_lruvec_page_state
  __rcu_read_lock
  __mod_lruvec_state
    __mod_node_page_state
    __mod_memcg_lruvec_state
      __cgroup_rstat_updated
  __rcu_read_unlock
mod_zone_page_state
`,
  // a folio still under writeback waited for (__filemap_fdatawait_range; the first sleeps: wb_wait)
  wb_wait_page: `
wait_on_page_writeback
  folio_wait_writeback
`,
};
