#!/usr/bin/env bash
# Records the reference outputs of the real system for tracefs / trace-cmd / perf (issue 17):
# boots Debian 12's Linux 6.1.0-56-amd64 under QEMU (the recording guest of the project,
# /work/shared/tools/qemu-debian-guest) with trace-cmd 3.1, linux-perf 6.1 and xxd installed,
# runs guest/common.sh + guest/part-NAME.sh as root for each group of parts (one boot per group,
# so a slow part cannot take the others with it), and splits the captures into
# test/fixtures/tracefs-real/ (one file per capture, bytes as the guest printed them; NAME.rc
# holds a non-zero exit status), and the kernel texts tracefs shows verbatim (README,
# printk_formats) into data/kernel/tracefs/.
# Only a developer runs this; npm test reads the committed files.
#   WORK=/tmp/qemu-tracefs scripts/tracefs/record.sh [GROUP...]     (cp -a /tmp/qemu-debian-guest $WORK first
#   saves the one-minute image build; the first run with the extra packages runs debootstrap again)
# Groups: basics seed000 graph events kprobes misc tracecmd tracedat perf (default: all).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-$root/test/fixtures/tracefs-real}
guest=${GUEST:-/work/shared/tools/qemu-debian-guest}
declare -A groups=(
  [basics]="files errors grammar" [seed000]="seed000 function" [graph]="graph" [events]="events"
  [kprobes]="kprobes profile stack instances cmdlines" [tracecmd]="tracecmd" [tracedat]="tracedat" [perf]="perf"
)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(basics seed000 graph events kprobes tracecmd tracedat perf)
mkdir -p "$out"
for g in "${want[@]}"; do
  parts=${groups[$g]:?unknown group $g}
  script=$(mktemp); raw=$(mktemp)
  cat "$here/guest/common.sh" > "$script"
  for p in $parts; do cat "$here/guest/part-$p.sh" >> "$script"; done
  echo 'echo "@@ DONE rc=0"; echo "@@ end"' >> "$script"
  echo "group $g: $parts" >&2
  EXTRA_PACKAGES=${EXTRA_PACKAGES:-trace-cmd,linux-perf,xxd} SMP=${SMP:-2} "$guest" "$script" > "$raw" || true
  python3 - "$raw" "$out" <<'PY'
import base64, os, re, sys
raw, out = sys.argv[1], sys.argv[2]
name, buf, n, done = None, [], 0, False
for line in open(raw, encoding='latin1'):
    line = line.rstrip('\n')
    m = re.match(r'^@@ (\S+) rc=(\d+)$', line)
    if m:
        name, rc, buf = m.group(1), m.group(2), []
        continue
    if line == '@@ end' and name:
        if name == 'DONE':
            done = True
        else:
            fn = name.replace('/', '__')
            with open(os.path.join(out, fn), 'wb') as f:
                f.write(base64.b64decode(''.join(buf)))
            rcf = os.path.join(out, fn + '.rc')
            if rc != '0':
                with open(rcf, 'w') as f: f.write(rc + '\n')
            elif os.path.exists(rcf):
                os.remove(rcf)
            n += 1
        name = None
        continue
    if name: buf.append(line)
print(f'{n} captures written to {out}' + ('' if done else ' (the guest did not finish: timeout)'), file=sys.stderr)
PY
  rm -f "$script" "$raw"
done
if [ -f "$out/cat:README" ]; then
  mkdir -p "$root/data/kernel/tracefs"
  cp "$out/cat:README" "$root/data/kernel/tracefs/README"
  cp "$out/cat:printk_formats" "$root/data/kernel/tracefs/printk_formats"
fi
