#!/bin/sh
# Issue 15: named pipes in a shell session: mkfifo and mknod (coreutils 9.1) make them, ls/stat/test -p
# see them, the shell's redirections open them (a reader waits for a writer and the reverse, EOF when the
# writer closes, O_RDWR never waits, a write after the last reader went fails with EPIPE; a waiting
# open's /proc/PID/wchan).  The expected output was made by this same script under Debian 12's dash and
# coreutils 9.1 (umask 022, as root, no LANG: `env -i PATH=/usr/bin:/bin dash fifo_shell.sh`); its kernel
# is newer than 6.1, whose fs/pipe.c open and wait_for_partner are the same (and wait_for_partner is out
# of line in Debian's 6.1 build too: a text symbol of its kallsyms, no inline instance in its DWARF).
umask 022
cd /tmp
rm -rf fifo-test; mkdir fifo-test; cd fifo-test
mkfifo f
ls -l f | cut -c1-10
stat -c '%F %a %s %h' f
test -p f && echo "f is a fifo"
test -f f || echo "f is not a regular file"
mkfifo f; echo "mkfifo again: $?"
mkfifo -m 600 g; stat -c '%A' g
mkfifo -m u=rw,g=r h; stat -c '%A' h
mkfifo -m a+x i; stat -c '%A' i
mkfifo -m 1777 j; echo "mkfifo -m 1777: $?"
mkfifo -m zz j; echo "mkfifo -m zz: $?"
mkfifo no/such/dir; echo "mkfifo no/such/dir: $?"
mkfifo; echo "mkfifo: $?"
mknod k p; stat -c '%F %a' k
mknod -m 640 l p; stat -c '%A' l
mknod m p 1 2; echo "mknod extra: $?"
mknod m z 1 2; echo "mknod type: $?"
mknod f p; echo "mknod exists: $?"
# a writer in the background, a reader here: the lines, then EOF when the writer closes
(echo one; echo two) > f &
cat f
wait
# the reader first, then the writer; the reader waits in fifo_open's wait_for_partner
cat f > out &
sleep 0.1
cat /proc/$!/wchan; echo
echo three > f
wait
cat out
# read and write ends both on one O_RDWR open: no wait
exec 3<>f
echo four >&3
read x <&3
echo "read back: $x"
exec 3>&-
# a reader that reads one line and leaves: the writer's next write gets EPIPE (SIGPIPE kills it)
sh -c 'exec 4<f; read y <&4; echo "reader got $y"' &
sh -c 'exec 5>f; echo five >&5; sleep 0.2; i=0; while [ $i -lt 1000 ]; do echo more; i=$((i+1)); done >&5; echo "not reached"'
echo "writer status: $?"
wait
echo *
cd /tmp; rm -rf fifo-test
