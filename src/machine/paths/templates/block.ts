/**
 * The block layer's paths (block/blk-core.c, blk-mq.c, blk-merge.c, blk-wbt.c, mq-deadline.c and the
 * SCSI/libata/AHCI driver below them), as the real 6.1 kernel runs them: the recorded trees of
 * blk_mq_submit_bio, blk_mq_flush_plug_list.part.0 and scsi_queue_rq (data/recordings dd-write, sync,
 * pagecache-miss).  The decisions are the machine's (block/core.ts, blk-merge.ts, blk-wbt.ts,
 * mq-deadline.ts): which bio is split, merged, throttled, which request a flush inserts and dispatches.
 */

export const blockPaths: Record<string, string> = {
  bio_submit: `
?blkdev
  mpage_readahead
    do_mpage_readpage
?ext4read
  ext4_readahead
    ext4_mpage_readpages
      ext4_map_blocks
        ext4_es_lookup_extent
?ext4write
  ext4_io_submit
submit_bio
  __get_task_ioprio
  submit_bio_noacct
    __cond_resched
    should_fail_bio.constprop.0
    ?part_bio
      @block:block_bio_remap
    submit_bio_noacct_nocheck
      blk_cgroup_bio_start
        __cgroup_rstat_updated
      ktime_get
      @block:block_bio_queue
      %bio_split_pieces
`,
  // one request's worth of a bio (__submit_bio_noacct_mq's loop: the bio, or each piece __bio_split_to_limits
  // cut off it, the rest resubmitted through submit_bio_noacct onto current->bio_list)
  blk_mq_submit: `
__submit_bio
  blk_mq_submit_bio
    __rcu_read_lock
    __rcu_read_unlock
    ?bio_multipage
      __bio_split_to_limits
        ?bio_has_data
          bvec_split_segs
        ?bio_split_part
          bio_split
            bio_alloc_bioset
              *bio_mempool_alloc
              bio_associate_blkg
                __rcu_read_lock
                kthread_blkcg
                bio_associate_blkg_from_css
                  __rcu_read_lock
                  __rcu_read_unlock
                __rcu_read_unlock
            __bio_clone
              bio_clone_blkg_association
                bio_associate_blkg_from_css
                  __rcu_read_lock
                  __rcu_read_unlock
                  __rcu_read_lock
                  __rcu_read_unlock
            __bio_advance
          ktime_get
          bio_chain
          @block:block_split
          submit_bio_noacct
            __cond_resched
            should_fail_bio.constprop.0
            submit_bio_noacct_nocheck
              blk_cgroup_bio_start
                __cgroup_rstat_updated
              ktime_get
    bio_integrity_prep
    %bio_queued
    blk_mq_attempt_bio_merge
      ?bio_mergeable
        blk_attempt_plug_merge
          ?plug_had_rq
            blk_rq_merge_ok
            ?bio_merged
              bio_attempt_back_merge
        ?!bio_merged
          blk_mq_sched_bio_merge
            dd_bio_merge
              _raw_spin_lock
              blk_mq_sched_try_merge
                elv_merge
                  elv_rqhash_find
                  dd_request_merge
                    elv_rb_find
              _raw_spin_unlock
    ?!bio_merged
      __rq_qos_throttle
        wbt_wait
          bio_to_wbt_flags
          %wbt_wait
          ?wbt_tracked
            rq_qos_wait
              wbt_inflight_cb
                rq_wait_inc_below
          ?wbt_arm
            rwb_arm_timer
              nsecs_to_jiffies
              mod_timer
                lock_timer_base
                  _raw_spin_lock_irqsave
                detach_if_pending
                get_nohz_timer_target
                _raw_spin_unlock
                _raw_spin_lock
                calc_wheel_index
                enqueue_timer
                  %timer_arm
                  @timer:timer_start
                _raw_spin_unlock_irqrestore
      __blk_mq_alloc_requests
        dd_limit_depth
        blk_mq_get_tag
          __blk_mq_get_tag
        blk_mq_rq_ctx_init.isra.0
          ktime_get
          dd_prepare_request
      @block:block_getrq
      __rq_qos_track
        wbt_track
          bio_to_wbt_flags
      %io_ticks
      update_io_ticks
        ?io_ticks_part
          part_in_flight
        ?io_ticks_disk
          part_in_flight
      blk_add_rq_to_plug
        %plug_add_tpl
`,
  bio_mempool_alloc: `
mempool_alloc
  __cond_resched
  mempool_alloc_slab
    kmem_cache_alloc
      should_failslab
`,
  // submit_bio_noacct's remap of a partition bio, blk_add_rq_to_plug's first request (block/core.ts)
  blk_bio_remap: `
@block:block_bio_remap
`,
  blk_plug: `
@block:block_plug
`,
  // blk_mq_dispatch_plug_list's block_unplug (block/core.ts unplug: the machine's plugged requests)
  blk_unplug: `
@block:block_unplug
`,
  // a plug's flush (blk_mq_flush_plug_list): its requests inserted into mq-deadline and the hardware
  // queue run (__blk_mq_do_dispatch_sched: each request taken from the scheduler, then handed to the driver)
  blk_dispatch: `
%plug_take
*blk_flush_list
`,
  // blk_mq_flush_plug_list.part.0 of the requests taken off a plug (e.plugTaken)
  blk_flush_list: `
?plug_taken
  blk_mq_flush_plug_list.part.0
    %unplug
    blk_mq_sched_insert_requests
      __rcu_read_lock
      __rcu_read_unlock
      dd_insert_requests
        _raw_spin_lock
        %dd_insert_each
        _raw_spin_unlock
      blk_mq_run_hw_queue
        __rcu_read_lock
        blk_mq_hctx_has_pending
          dd_has_work
        __rcu_read_unlock
        __blk_mq_delay_run_hw_queue
          __blk_mq_run_hw_queue
            __rcu_read_lock
            blk_mq_sched_dispatch_requests
              __blk_mq_sched_dispatch_requests
                blk_mq_do_dispatch_sched
                  %dd_dispatch_each
                  dd_has_work
                  blk_mq_dispatch_rq_list
                    %rq_dispatch_each
                  dd_has_work
            __rcu_read_unlock
      __rcu_read_lock
      __rcu_read_unlock
`,
  // a recorded dd_insert_requests' block_rq_insert for each request the machine's flush inserts
  blk_rq_insert: `
@block:block_rq_insert
`,
  // one plugged request entering mq-deadline (dd_insert_request, inlined in dd_insert_requests): an insert
  // merge tried for a mergeable one, block_rq_insert, the sort tree, the merge hash
  dd_insert_one: `
blk_mq_sched_try_insert_merge
  ?rq_mergeable
    elv_attempt_insert_merge
      elv_rqhash_find
@block:block_rq_insert
elv_rb_add
?rq_mergeable
  elv_rqhash_add
`,
  // one request taken from mq-deadline by __blk_mq_do_dispatch_sched's loop: a SCSI budget, the request
  // (dd_dispatch_request: the RT level empty, then the best-effort level's), its driver tag
  dd_dispatch_one: `
dd_has_work
scsi_mq_get_budget
dd_dispatch_request
  _raw_spin_lock
  __dd_dispatch_request
    deadline_next_request
  __dd_dispatch_request
    deadline_next_request
    deadline_next_request
    deadline_remove_request
      elv_rb_del
      elv_rqhash_del
    blk_req_needs_zone_write_lock
  _raw_spin_unlock
scsi_mq_set_rq_budget_token
__blk_mq_get_driver_tag
`,
  // one request handed to the driver by blk_mq_dispatch_rq_list's loop (its events where paths/tpsites.ts
  // places them in the recorded trees: scsi_dispatch_cmd before ->queuecommand, ata_qc_prep/_issue around ->qc_prep)
  blk_rq_queue: `
scsi_queue_rq
  scsi_init_command
    scsi_initialize_rq
    init_timer_key
  sd_init_command
    scsi_alloc_sgtables
      ?sg_chained
        *bio_mempool_alloc
      __blk_rq_map_sg
  blk_mq_start_request
    @block:block_rq_issue
    ktime_get
    __rq_qos_issue
      wbt_issue
    %rq_timeout
    blk_add_timer
      ?rq_timer_arm
        mod_timer
          *timer_enqueue
  scsi_log_send
  @scsi:scsi_dispatch_cmd_start
  ata_scsi_queuecmd
    _raw_spin_lock_irqsave
    ata_scsi_find_dev
      __ata_scsi_find_dev
    __ata_scsi_queuecmd
      ata_sg_init
      ata_scsi_rw_xlat
        ata_build_rw_tf
      ahci_pmp_qc_defer
        ata_std_qc_defer
      ata_qc_issue
        dma_map_sg_attrs
          __dma_map_sg_attrs
            dma_direct_map_sg
        @libata:ata_qc_prep
        ahci_qc_prep
          ata_tf_to_fis
        @libata:ata_qc_issue
        ahci_qc_issue
          %dev_issue
    _raw_spin_unlock_irqrestore
`,
  blk_irq: `
asm_common_interrupt
  common_interrupt
    __common_interrupt
      handle_edge_irq
        handle_irq_event
          __handle_irq_event_percpu
            @irq:irq_handler_entry
            ahci_single_level_irq_intr
              ahci_handle_port_intr
                ahci_handle_port_interrupt
                  ata_qc_complete_multiple
                    ata_qc_complete
                      @libata:ata_qc_complete_done
                      __ata_qc_complete
                        ata_scsi_qc_complete
                          scsi_done
                            @scsi:scsi_dispatch_cmd_done
                            blk_mq_complete_request
                              %blk_irq
            @irq:irq_handler_exit
    irq_exit_rcu
`,
  blk_end_request: `
scsi_complete
  scsi_decide_disposition
  scsi_finish_command
    sd_done
    scsi_io_completion
      scsi_end_request
        blk_update_request
          @block:block_rq_complete
          %io_ticks_end
          bio_endio
            ?swapio
              end_swap_bio_read
                %bio_done
            ?ext4wbio
              ext4_end_bio
                ext4_finish_bio
                  %bio_done
            ?diobio
              iomap_dio_bio_end_io
                %bio_done
            ?plainbio
              mpage_end_io
                %bio_done
        __blk_mq_end_request
          __blk_mq_free_request
`,
};
