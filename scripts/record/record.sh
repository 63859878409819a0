#!/usr/bin/env bash
# The recorder: boots the real Debian 12 system under QEMU (pure emulation) and records workloads with the
# kernel's own tracers, then converts the raw traces into data/recordings/. See README.md and FORMAT.md.
#   scripts/record/record.sh                       the whole catalogue (catalogue.tsv)
#   scripts/record/record.sh --only ls-root,cat    some catalogue workloads
#   scripts/record/record.sh 'cp -r /etc /root/etc-copy' [...]   any commands (named cmd-<slug>)
#   npm run record -- 'cp -r /etc /root/etc-copy'
# Options: --setup 'SH' (untraced setup before each ad-hoc command), --name NAME (for one ad-hoc command),
#          --no-convert (keep the raw traces only), --convert-only (re-run the converter on the raw traces)
# Env: REC_WORK (guest image and raw traces, default /tmp/tapsim-record), SMP (default 4), MEM (MiB, 2048),
#      IDLE_S (idle-system seconds, 5), BUF_KB (ring buffer per CPU, 40960), BATCH (workloads per boot),
#      REC_NOSYSTEM=1 (skip the system snapshot and idle rates)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); repo=$(cd "$here/../.." && pwd)
WORK=${REC_WORK:-/tmp/tapsim-record}; export WORK
only=""; setup="-"; name=""; convert=1; convert_only=0; cmds=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only=$2; shift 2;;
    --setup) setup=$2; shift 2;;
    --name) name=$2; shift 2;;
    --no-convert) convert=0; shift;;
    --convert-only) convert_only=1; shift;;
    -h|--help) sed -n '2,12p' "$0"; exit 0;;
    -*) echo "record: unknown option $1" >&2; exit 2;;
    *) cmds+=("$1"); shift;;
  esac
done
mkdir -p "$WORK"
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
  sh /root/rec/recorder.sh /root/rec/catalogue /var/tmp/rec ${IDLE_S:-5} ${BUF_KB:-40960}
sync; echo o > /proc/sysrq-trigger
RUN
  chmod +x rootfs/sbin/recorder-run
  rm -f disk.img && truncate -s 6G disk.img && echo 'start=2048, type=83' | sfdisk -q disk.img
  mke2fs -q -F -t ext4 -E offset=1048576 -d rootfs -L root disk.img 6290432k
  echo "record: booting the guest (SMP=${SMP:-4}, MEM=${MEM:-2048}) for: $(cut -f1 "$1" | tr '\n' ' ')" >&2
  : > "$WORK/console.log"
  timeout 14400 qemu-system-x86_64 -m "${MEM:-2048}" -smp "${SMP:-4}" -kernel img/boot/vmlinuz-6.1.0-56-amd64 -initrd initrd.gz \
    -drive file=disk.img,if=none,id=d0,format=raw -device ahci,id=ahci -device ide-hd,drive=d0,bus=ahci.0 \
    -append "console=ttyS0 quiet panic=-1 nokaslr tsc=reliable systemd.show_status=0" \
    -display none -monitor none -serial "file:$WORK/console.log" -no-reboot &
  qpid=$!
  # progress lines of the recorder
  tail -n +1 -f "$WORK/console.log" --pid=$qpid 2>/dev/null | grep --line-buffered '^== rec' >&2 || true
  wait $qpid || true
  cat "$WORK/console.log" >> "$WORK/console.all.log"
  # pull the raw traces out of the guest disk (no mount needed)
  mkdir -p "$raw"
  rm -rf "$WORK/pull" && mkdir -p "$WORK/pull"
  debugfs -R "rdump /var/tmp/rec $WORK/pull" "disk.img?offset=1048576" >/dev/null 2>&1
  [ -d "$WORK/pull/rec" ] || { echo "record: the guest left no recordings (see $WORK/console.log)" >&2; return 1; }
  for d in "$WORK"/pull/rec/*; do rm -rf "$raw/$(basename "$d")"; mv "$d" "$raw/"; done
}

convert_names() {
  [ $convert = 1 ] || return 0
  (cd "$repo" && { [ -f dist/scripts/record/convert.js ] || npx tsc -p .; } && node dist/scripts/record/convert.js --raw "$raw" --out "$repo/data/recordings" "$@")
}

if [ $convert_only = 0 ]; then
  start=$(date +%s)
  bash "$here/image.sh"
  # BATCH workloads per boot (default all): each boot's recordings are pulled and converted before
  # the next, so a long catalogue yields data as it goes; the system snapshot is taken in the first
  n=$(wc -l < "$cat_run"); per=${BATCH:-$n}; i=0; sys=; [ "${REC_NOSYSTEM:-}" = 1 ] && sys=nosystem
  while [ $i -lt "$n" ]; do
    sed -n "$((i + 1)),$((i + per))p" "$cat_run" > "$WORK/catalogue.batch"
    # a loaded host can make TCG too slow for the boot-time IO-APIC timer check ("IO-APIC + timer
    # doesn't work!" panic): boot again
    tries=0
    until boot_batch "$WORK/catalogue.batch" $sys; do
      tries=$((tries + 1))
      grep -q 'Kernel panic' "$WORK/console.log" && [ $tries -lt 3 ] || exit 1
      echo "record: the guest panicked while booting; booting again" >&2
    done
    convert_names $(cut -f1 "$WORK/catalogue.batch")
    i=$((i + per)); sys=nosystem
  done
  echo "record: took $(( $(date +%s) - start )) s; raw traces in $raw" >&2
else
  convert_names $names
fi
