#!/usr/bin/env bash
# The recorder: boots the real Debian 12 system under QEMU (pure emulation) and records workloads with the
# kernel's own tracers, then converts the raw traces into data/recordings/. See README.md and FORMAT.md.
#   scripts/record/record.sh                       the whole catalogue (catalogue.tsv)
#   scripts/record/record.sh --only ls-root,cat    some catalogue workloads
#   scripts/record/record.sh 'cp -r /etc /root/etc-copy' [...]   any commands (named cmd-<slug>)
#   npm run record -- 'cp -r /etc /root/etc-copy'
# Options: --setup 'SH' (untraced setup before each ad-hoc command), --name NAME (for one ad-hoc command),
#          --heldout (ad-hoc commands into data/recordings/heldout/: measured apart by the fidelity run,
#          never used to generate the machine's paths; no system snapshot),
#          --no-convert (keep the raw traces only), --convert-only (re-run the converter on the raw traces)
# Env: REC_WORK (guest image and raw traces, default /tmp/tapsim-record), SMP (default 4), MEM (MiB, 2048),
#      IDLE_S (idle-system seconds, 10), BUF_KB (ring buffer per CPU, 40960), BATCH (workloads per boot),
#      RUN_TIMEOUT (guest seconds before a hung run is killed, 300),
#      REC_NOSYSTEM=1 (skip the system snapshot and idle rates), TCG_THREAD (single: vCPUs round-robin in
#      one host thread; multi), ICOUNT_SHIFT (unset; N: -icount shift=N, hangs with SMP > 1 on QEMU 7.2),
#      REC_VERBOSE=1 (kernel messages on the console), WATCHDOG_S (2700:
#      host seconds without a progress line before the guest is stopped), TRIES (3 boots per batch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
WORK=${REC_WORK:-/tmp/tapsim-record}; export WORK
# the guest file system's identity (see boot_batch): fixed so that every disk has the same /etc order
REC_FS_UUID=2f0e6d1a-7c3b-4e58-9a41-5d2c8b7e6f10
REC_FS_HASH_SEED=8d3f2a61-4b7e-4c19-a5d0-3e9b1c7f2a84
REC_FS_TIME=1764201600   # 2025-11-27 00:00 UTC: the superblock's creation and mount-count times
only=""; setup="-"; name=""; convert=1; convert_only=0; heldout=0; cmds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift 2;;
    --setup) setup=$2; shift 2;;
    --name) name=$2; shift 2;;
    --heldout) heldout=1; shift;;
    --no-convert) convert=0; shift;;
    --convert-only) convert_only=1; shift;;
    -h|--help) sed -n '2,18p' "$0"; exit 0;;
    -*) echo "record: unknown option $1" >&2; exit 2;;
    *) cmds+=("$1"); shift;;
  esac
done
mkdir -p "$WORK"
out="$repo/data/recordings"
if [ $heldout = 1 ]; then
  [ ${#cmds[@]} -gt 0 ] || { echo "record: --heldout records ad-hoc commands only" >&2; exit 2; }
  out="$repo/data/recordings/heldout"; mkdir -p "$out"
fi
raw="$WORK/raw"
slug() { printf 'cmd-%s' "$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '-' | tr -s '-' | sed 's/^-//;s/-$//' | cut -c1-40)"; }

# the workloads of this run
cat_run="$WORK/catalogue.run"
if [ ${#cmds[@]} -gt 0 ]; then
  : > "$cat_run"
  for c in "${cmds[@]}"; do
    n=${name:-$(slug "$c")}
    printf '%s\t-\t%s\t%s\n' "$n" "$setup" "$c" >> "$cat_run"
  done
elif [ -n "$only" ]; then
  : > "$cat_run"   # in the order given
  for w in $(echo "$only" | tr ',' ' '); do awk -F'\t' -v w="$w" '$1 == w' "$here/catalogue.tsv" >> "$cat_run"; done
  [ -s "$cat_run" ] || { echo "record: no catalogue workload named $only" >&2; exit 2; }
else
  grep -v '^#' "$here/catalogue.tsv" | grep -v '^$' > "$cat_run"
fi
names=$(cut -f1 "$cat_run" | tr '\n' ' ')

# one boot: record the workloads of catalogue file $1 (and the system snapshot unless $2 = nosystem),
# pull the raw traces out of the guest disk into $raw
boot_batch() {
  cd "$WORK"
  mkdir -p rootfs/root/rec
  cp "$here/guest/recorder.sh" rootfs/root/rec/recorder.sh
  cp "$1" rootfs/root/rec/catalogue
  rm -f rootfs/root/rec/nosystem; [ "${2:-}" = nosystem ] && touch rootfs/root/rec/nosystem
  cat > rootfs/sbin/recorder-run <<RUN
#!/bin/sh
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
rm -rf /var/tmp/rec
# the 1 GiB /swapfile of /etc/fstab (made here: a file copied in by mke2fs -d may have holes)
grep -q swapfile /proc/swaps || { rm -f /swapfile; fallocate -l 1G /swapfile; chmod 600 /swapfile; mkswap /swapfile >/dev/null; swapon /swapfile; }
# a clean environment for the recorder and its workloads (no LANG: the C locale, as the model has)
env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin TERM=vt220 \\
  sh /root/rec/recorder.sh /root/rec/catalogue /var/tmp/rec ${IDLE_S:-10} ${BUF_KB:-40960} ${RUN_TIMEOUT:-300}
sync; echo o > /proc/sysrq-trigger
RUN
  chmod +x rootfs/sbin/recorder-run
  rm -f disk.img && truncate -s 6G disk.img && echo 'start=2048, type=83' | sfdisk -q disk.img
  # One file system for every batch and every re-record: a fixed UUID and directory-hash seed (ext4's
  # htree order, the order getdents64 returns /etc's entries in: what ls -l, find, tar and cp -r see),
  # the mke2fs settings of scripts/record/mke2fs.conf (not the host's), and the C locale (mke2fs -d
  # populates each directory in alphasort order: its inode numbers follow that order)
  LC_ALL=C MKE2FS_CONFIG="$here/mke2fs.conf" E2FSPROGS_FAKE_TIME=$REC_FS_TIME \
    mke2fs -q -F -t ext4 -U "$REC_FS_UUID" -E "offset=1048576,hash_seed=$REC_FS_HASH_SEED" -d rootfs -L root disk.img 6290432k
  echo "record: booting the guest (SMP=${SMP:-4}, MEM=${MEM:-2048}, TCG ${ICOUNT_SHIFT:+icount }${TCG_THREAD:-single}) for: $(cut -f1 "$1" | tr '\n' ' ')" >&2
  : > "$WORK/console.log"
  # The vCPUs run round-robin in one host thread (TCG_THREAD=single): with one host thread per vCPU
  # (multi) on this loaded 2-core host, a vCPU thread that the host deschedules while it holds a lock
  # leaves the others spinning, and guests stalled for hours (RCU stalls, soft lockups); round-robin
  # never runs a spinner while the lock holder waits for a host CPU. (-icount, the guest clock following
  # instructions instead of host time, would be better still, but QEMU 7.2 hangs bringing up the
  # secondary CPUs with it: ICOUNT_SHIFT=N tries it.) rcu_cpu_stall_suppress only keeps the slow
  # emulation's RCU stall reports (long stack dumps over the serial console) from slowing it further.
  loglevel=quiet; [ -n "${REC_VERBOSE:-}" ] && loglevel=ignore_loglevel   # REC_VERBOSE=1: every kernel message on the console
  icount=(-accel "tcg,thread=${TCG_THREAD:-single}"); [ -n "${ICOUNT_SHIFT:-}" ] && icount=(-icount "shift=$ICOUNT_SHIFT")
  qemu-system-x86_64 "${icount[@]}" -m "${MEM:-2048}" -smp "${SMP:-4}" -kernel img/boot/vmlinuz-6.1.0-56-amd64 -initrd initrd.gz \
    -drive file=disk.img,if=none,id=d0,format=raw -device ahci,id=ahci -device ide-hd,drive=d0,bus=ahci.0 \
    -append "console=ttyS0 $loglevel panic=-1 nokaslr tsc=reliable systemd.show_status=0 rcupdate.rcu_cpu_stall_suppress=1" \
    -display none -monitor none -serial "file:$WORK/console.log" -no-reboot &
  qpid=$!
  # the recorder's progress lines, and a watchdog: a guest that prints no progress line for WATCHDOG_S
  # host seconds (stalled, hung workload) is killed; the workloads it finished are kept, the rest retried
  local seen=0 last now n
  last=$(date +%s)
  while kill -0 $qpid 2>/dev/null; do
    sleep 5
    n=$(grep -ac '^== rec' "$WORK/console.log" || true)
    if [ "$n" -gt "$seen" ]; then grep -a '^== rec' "$WORK/console.log" | sed -n "$((seen + 1)),${n}p" >&2; seen=$n; last=$(date +%s); fi
    now=$(date +%s)
    if [ $((now - last)) -gt "${WATCHDOG_S:-2700}" ]; then
      echo "record: no progress for ${WATCHDOG_S:-2700} s: stopping the guest (pid $qpid)" >&2
      kill $qpid 2>/dev/null; sleep 5; kill -9 $qpid 2>/dev/null || true
      echo "== host watchdog: guest stopped" >> "$WORK/console.log"
    fi
  done
  wait $qpid || true
  cat "$WORK/console.log" >> "$WORK/console.all.log"
  # pull the raw traces out of the guest disk (no mount needed)
  mkdir -p "$raw"
  rm -rf "$WORK/pull" && mkdir -p "$WORK/pull"
  debugfs -R "rdump /var/tmp/rec $WORK/pull" "disk.img?offset=1048576" >/dev/null 2>&1
  [ -d "$WORK/pull/rec" ] || { echo "record: the guest left no recordings (see $WORK/console.log)" >&2; return 1; }
  # a workload is finished when its "seconds" file exists (the guest syncs after each one); the system
  # snapshot when its idle directory has its trace
  local got=0
  for d in "$WORK"/pull/rec/*; do
    [ -e "$d/seconds" ] || [ -e "$d/idle/trace.gz" ] || continue
    rm -rf "$raw/$(basename "$d")"; mv "$d" "$raw/"; got=$((got + 1))
  done
  [ $got -gt 0 ] || { echo "record: the guest finished no workload (see $WORK/console.log)" >&2; return 1; }
}

convert_names() {
  [ $convert = 1 ] || return 0
  (cd "$repo" && { [ -f dist/scripts/record/convert.js ] || npx tsc -p .; } && node dist/scripts/record/convert.js --raw "$raw" --out "$out" "$@")
}

if [ $convert_only = 0 ]; then
  start=$(date +%s)
  bash "$here/image.sh"
  # BATCH workloads per boot (default all): each boot's recordings are pulled and converted before
  # the next, so a long catalogue yields data as it goes; the system snapshot is taken in the first
  n=$(wc -l < "$cat_run"); per=${BATCH:-$n}; i=0; sys=; { [ "${REC_NOSYSTEM:-}" = 1 ] || [ $heldout = 1 ]; } && sys=nosystem
  while [ $i -lt "$n" ]; do
    sed -n "$((i + 1)),$((i + per))p" "$cat_run" > "$WORK/catalogue.batch"
    # boot again (up to TRIES times) while workloads of the batch are missing: a guest that panicked
    # while booting, or was stopped by the watchdog; each boot records only what is still missing
    tries=0; cp "$WORK/catalogue.batch" "$WORK/catalogue.todo"; batch_sys=$sys
    while :; do
      boot_batch "$WORK/catalogue.todo" $sys || true
      [ "$raw/system/idle/trace.gz" -nt "$WORK/catalogue.run" ] && sys=nosystem
      : > "$WORK/catalogue.left"
      while IFS= read -r l; do [ -e "$raw/${l%%$'\t'*}/seconds" ] && [ "$raw/${l%%$'\t'*}/seconds" -nt "$WORK/catalogue.run" ] || printf '%s\n' "$l" >> "$WORK/catalogue.left"; done < "$WORK/catalogue.todo"
      [ -s "$WORK/catalogue.left" ] || break
      tries=$((tries + 1))
      [ $tries -lt "${TRIES:-3}" ] || { echo "record: not recorded after ${TRIES:-3} boots: $(cut -f1 "$WORK/catalogue.left" | tr '\n' ' ')" >&2; break; }
      echo "record: still to record: $(cut -f1 "$WORK/catalogue.left" | tr '\n' ' '); booting again" >&2
      mv "$WORK/catalogue.left" "$WORK/catalogue.todo"
    done
    # the system snapshot is converted only when this batch recorded it (not a raw one left from an earlier boot)
    sysflag=; [ -z "$batch_sys" ] && [ "$raw/system/idle/trace.gz" -nt "$WORK/catalogue.run" ] && sysflag=--system
    convert_names $sysflag $(cut -f1 "$WORK/catalogue.batch")
    i=$((i + per)); sys=nosystem
  done
  echo "record: took $(( $(date +%s) - start )) s; raw traces in $raw" >&2
else
  convert_names $names
fi
