#!/bin/sh
# Record the loaded modules of the real Debian 12 guest (linux-image-6.1.0-56-amd64 under QEMU,
# nokaslr, modules loaded as its initramfs loads them: crc32c_generic, ahci, sd_mod, ext4 and
# their dependencies) into data/kernel/modules.snapshot.gz, the input modules.py lays the module
# symbols out from. Module addresses vary by a few pages from boot to boot (init sections are
# freed asynchronously): the data keeps one boot's.
# Usage: scripts/kernel-data/snapshot.sh   (env QEMU_GUEST: the guest runner, WORK: its scratch dir)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$HERE/../.." && pwd)/data/kernel
GUEST=${QEMU_GUEST:-/work/shared/tools/qemu-debian-guest}
tmp=$(mktemp)
"$GUEST" "$HERE/guest-modules.sh" > "$tmp"
grep -q '^== GUEST END' "$tmp" || { echo "guest run failed:" >&2; tail -20 "$tmp" >&2; exit 1; }
sed -e '1d' -e '/^== GUEST END/,$d' "$tmp" | gzip -9n > "$OUT/modules.snapshot.gz"
rm -f "$tmp"
ls -l "$OUT/modules.snapshot.gz"
