#!/bin/sh
# Fetch and unpack the Debian 12 artefacts the kernel data is generated from, then run the
# generator. Usage: scripts/kernel-data/fetch.sh [WORKDIR] (default /tmp/kernel-data-work)
# Needs: apt-get (Debian 12 sources), dpkg-deb, llvm-dwarfdump (llvm-14), python3, xz.
# Heavy: ~1.1 GB of downloads, ~1 GB unpacked. Never run it inside the repository.
set -eu
ABI=6.1.0-56
VER=6.1.192-2
WORK=${1:-/tmp/kernel-data-work}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(cd "$HERE/../.." && pwd)/data/kernel
mkdir -p "$WORK" && cd "$WORK"
apt-get update >/dev/null
apt-get download "linux-image-$ABI-amd64-unsigned=$VER" "linux-image-$ABI-amd64-dbg=$VER" "linux-source-6.1=$VER"
mkdir -p img dbg src
dpkg-deb -x linux-image-$ABI-amd64-unsigned_${VER}_amd64.deb img
dpkg-deb --fsys-tarfile linux-image-$ABI-amd64-dbg_${VER}_amd64.deb | tar -x -C dbg ./usr/lib/debug/boot/
# DWARF of the modules the guest loads (the recorder's data/recordings/system.json.gz) and of the
# installed-but-not-loaded ones modules.py lists (UNLOADED)
mkdir -p dbgmod
dpkg-deb --fsys-tarfile linux-image-$ABI-amd64-dbg_${VER}_amd64.deb | tar -x -C dbgmod --wildcards \
  $(python3 -c "import gzip,json,re;d=json.load(gzip.open('$OUT/../recordings/system.json.gz'));s=open('$HERE/modules.py').read();\
mods=[l.split()[0] for l in d['modules'].splitlines() if l.strip()]+[m.split('/')[-1] for m in re.findall(r\"'((?:fs|net)/[^']+)'\", s)];\
print(' '.join('./usr/lib/debug/lib/modules/*/kernel/*'+m.replace('_','[-_]')+'.ko' for m in mods))")
dpkg-deb -x linux-source-6.1_${VER}_all.deb src
(cd src/usr/src && tar xf linux-source-6.1.tar.xz)
ln -sf dbg/usr/lib/debug/boot/vmlinux-$ABI-amd64 vmlinux
ln -sf dbg/usr/lib/debug/boot/System.map-$ABI-amd64 System.map
ln -sf img/boot/config-$ABI-amd64 config
ln -sfn src/usr/src/linux-source-6.1 linux-source
# top-level DW_TAG_subprogram and DW_TAG_variable DIEs only (-r 1): ~35 s
llvm-dwarfdump --debug-info -r 1 vmlinux 2>/dev/null | python3 "$HERE/dwarf_funcs.py" dwarf_vars.tsv > dwarf_funcs.tsv
python3 "$HERE/gen.py" "$WORK" "$OUT"
python3 "$HERE/globals.py" "$WORK" "$OUT"
python3 "$HERE/modules.py" "$WORK" "$OUT"
# the modules' trace events (their formats and ids recorded from the guest: module-events.sh)
python3 "$HERE/module_events.py" "$WORK" "$OUT"
KDATA_WORK="$WORK" python3 "$HERE/module_inlines.py" "$WORK" "$OUT"
# inline instances, locals and call sites of the functions the machine model runs (needs a built tree: npm run build)
node "$HERE/../../dist/scripts/model-functions.js" > model_funcs.txt
python3 "$HERE/inline_sites.py" "$WORK" "$OUT" model_funcs.txt
# inline callees, labels and line records of the functions of the same units (~50 min under load)
python3 "$HERE/scopes.py" "$WORK" "$OUT" model_funcs.txt
KDATA_WORK="$WORK" python3 "$HERE/callsites.py" "$WORK" "$OUT" model_funcs.txt
du -sh "$OUT"
