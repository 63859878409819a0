#!/usr/bin/env bash
# Build (once) the Debian 12 guest the recorder boots: Debian's linux-image-6.1.0-56-amd64 (the build
# data/kernel/ comes from), a debootstrapped bookworm userland with systemd as init and the services the
# model's default system runs (src/machine/workload.ts: systemd, systemd-journald, rsyslogd, cron, sshd,
# nginx), the workload programs (dbench/tbench, netcat, strace), a 1 GiB /swapfile in /etc/fstab, and a
# busybox initramfs that loads the root-disk modules as Debian does (ahci, sd_mod, ext4) and switches to
# systemd. Sourced by record.sh with WORK set; installs its host tools from Debian packages.
set -euo pipefail
kver=6.1.0-56-amd64
pkgs="systemd-sysv,openssh-server,cron,rsyslog,nginx-light,dbench,netcat-openbsd,strace,procps,iputils-ping,kmod,bash,tar,gzip"
cd "$WORK"
need=()
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v busybox >/dev/null || need+=(busybox-static)
command -v cpio >/dev/null || need+=(cpio)
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v sfdisk >/dev/null || need+=(fdisk)
command -v mke2fs >/dev/null || need+=(e2fsprogs)
command -v gcc >/dev/null || need+=(gcc libc6-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "record: installing ${need[*]} (one time)..." >&2
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
if [ ! -f "img/boot/vmlinuz-$kver" ]; then
  apt-get download "linux-image-$kver" >/dev/null
  dpkg-deb -x linux-image-"$kver"_*.deb img
fi
stamp="rootfs.$(echo "$pkgs" | md5sum | cut -c1-8).done"
if [ ! -f "$stamp" ]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=$(awk '/^deb / {print $2; exit}' /etc/apt/sources.list)
  rm -rf rootfs; echo "record: building the Debian 12 guest (debootstrap, a few minutes)..." >&2
  debootstrap --variant=minbase --include="$pkgs" bookworm rootfs "$mirror" >debootstrap.log 2>&1
  mkdir -p rootfs/lib/modules && cp -r "img/lib/modules/$kver" rootfs/lib/modules/
  chroot rootfs /sbin/depmod "$kver"
  echo debian > rootfs/etc/hostname
  printf '127.0.0.1\tlocalhost\n127.0.1.1\tdebian\n' > rootfs/etc/hosts
  printf '/dev/sda1 / ext4 errors=remount-ro 0 1\n/swapfile none swap sw 0 0\n' > rootfs/etc/fstab
  # no login prompts on the console (the model has no getty); the recorder unit runs the workloads
  for u in getty@tty1.service serial-getty@ttyS0.service getty.target; do ln -sf /dev/null "rootfs/etc/systemd/system/$u"; done
  cat > rootfs/etc/systemd/system/recorder.service <<'UNIT'
[Unit]
Description=tapsim recorder
After=multi-user.target ssh.service cron.service rsyslog.service nginx.service systemd-journald.service
[Service]
Type=oneshot
ExecStart=/sbin/recorder-run
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
[Install]
WantedBy=multi-user.target
UNIT
  ln -sf /etc/systemd/system/recorder.service rootfs/etc/systemd/system/multi-user.target.wants/recorder.service
  # initramfs: busybox + the modules that reach the root disk, then switch_root into systemd
  rm -rf ird && mkdir -p ird/{bin,proc,sys,dev,newroot} "ird/lib/modules/$kver"
  cp "$(command -v busybox)" ird/bin/busybox
  for a in sh mount modprobe switch_root sleep; do ln -sf busybox "ird/bin/$a"; done
  M="rootfs/lib/modules/$kver"
  for f in $(grep -E '^kernel/(fs/ext4/ext4|drivers/ata/ahci|drivers/scsi/sd_mod|crypto/crc32c_generic)\.ko' "$M/modules.dep" | tr -d ':' | tr ' ' '\n' | sort -u); do
    mkdir -p "ird/lib/modules/$kver/$(dirname "$f")"; cp "$M/$f" "ird/lib/modules/$kver/$f"
  done
  cp "$M/modules.dep" "ird/lib/modules/$kver/"
  cat > ird/init <<'INIT'
#!/bin/sh
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
modprobe crc32c_generic; modprobe ahci; modprobe sd_mod; modprobe ext4
n=0; while [ ! -b /dev/sda1 ] && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
mount -t ext4 /dev/sda1 /newroot || { echo "== GUEST ROOT MOUNT FAILED"; echo o > /proc/sysrq-trigger; }
mount --move /dev /newroot/dev; mount --move /proc /newroot/proc; mount --move /sys /newroot/sys
exec switch_root /newroot /sbin/init
INIT
  chmod +x ird/init
  (cd ird && find . | cpio -o -H newc 2>/dev/null | gzip) > initrd.gz
  touch "$stamp"
fi
