#!/usr/bin/env bash
# Records the reference outputs of the real system for tracefs / trace-cmd / perf (issue 17):
# boots Debian 12's Linux 6.1.0-56-amd64 under QEMU (the recording guest of the project,
# /work/shared/tools/qemu-debian-guest) with trace-cmd 3.1, linux-perf 6.1 and xxd installed,
# runs guest-capture.sh as root, and splits its captures into test/fixtures/tracefs-real/
# (one file per capture, bytes as the guest printed them; NAME.rc holds the exit status), and
# the kernel texts tracefs shows verbatim (README, printk_formats) into data/kernel/tracefs/.
# Only a developer runs this; npm test reads the committed files.
#   WORK=/tmp/qemu-tracefs scripts/tracefs/record.sh     (cp -a /tmp/qemu-debian-guest $WORK first
#   saves the one-minute image build; the first run with the extra packages runs debootstrap again)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-$root/test/fixtures/tracefs-real}
guest=${GUEST:-/work/shared/tools/qemu-debian-guest}
raw=$(mktemp)
EXTRA_PACKAGES=${EXTRA_PACKAGES:-trace-cmd,linux-perf,xxd} SMP=${SMP:-2} "$guest" "$here/guest-capture.sh" > "$raw"
grep -q '^@@ DONE' "$raw" || { echo "guest run incomplete (see $raw)" >&2; exit 1; }
mkdir -p "$out"
python3 - "$raw" "$out" <<'PY'
import base64, os, re, sys
raw, out = sys.argv[1], sys.argv[2]
name, buf, n = None, [], 0
for line in open(raw, encoding='latin1'):
    line = line.rstrip('\n')
    m = re.match(r'^@@ (\S+) rc=(\d+)$', line)
    if m:
        name, rc, buf = m.group(1), m.group(2), []
        continue
    if line == '@@ end' and name:
        if name != 'DONE':
            fn = name.replace('/', '__')
            with open(os.path.join(out, fn), 'wb') as f:
                f.write(base64.b64decode(''.join(buf)))
            if rc != '0':
                with open(os.path.join(out, fn + '.rc'), 'w') as f: f.write(rc + '\n')
            n += 1
        name = None
        continue
    if name: buf.append(line)
print(f'{n} captures written to {out}')
PY
# the kernel's own texts tracefs shows verbatim (README's mini-HOWTO, printk_formats) are data
mkdir -p "$root/data/kernel/tracefs"
cp "$out/cat:README" "$root/data/kernel/tracefs/README"
cp "$out/cat:printk_formats" "$root/data/kernel/tracefs/printk_formats"
rm -f "$raw"
