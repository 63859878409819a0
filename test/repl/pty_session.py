#!/usr/bin/env python3
"""Type a session into a program through a real pseudo-terminal, as a person would.

    python3 pty_session.py STEPS.json

STEPS.json: {"cmd": [argv...], "env": {...}, "cols": 120, "steps": [STEP, ...]} where a STEP is
  {"send": "text"}                 type text ("\\r" is Enter, "\\t" TAB, "\\u0003" Ctrl-C, "\\u0004" Ctrl-D)
  {"expect": "regex", "timeout": 10, "name": "label"}
                                   wait until the screen text after the previous match matches
                                   (ANSI escapes removed); records how long it took from the last send
  {"sleep": 0.5}
Prints one JSON object: {"ok": bool, "failed": label-or-null, "screen": text, "raw": text,
"timings": {label: ms}, "status": exit status or null}.  Never raises on a timeout: the caller
asserts on the result.
"""
import json, os, pty, re, select, signal, struct, sys, time, fcntl, termios

ANSI = re.compile(r'\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]|\x1b[=>]')


def main():
    spec = json.load(open(sys.argv[1]))
    env = dict(os.environ)
    env.update(spec.get('env', {}))
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvpe(spec['cmd'][0], spec['cmd'], env)
        finally:
            os._exit(127)
    cols = spec.get('cols', 120)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, cols, 0, 0))
    raw = b''
    pos = 0            # screen offset after the last match
    last_send = time.monotonic()
    timings = {}
    failed = None
    status = None

    def pump(wait):
        nonlocal raw
        r, _, _ = select.select([fd], [], [], wait)
        if not r:
            return True
        try:
            data = os.read(fd, 65536)
        except OSError:
            return False
        if not data:
            return False
        raw += data
        return True

    def screen():
        return ANSI.sub('', raw.decode('latin1')).replace('\r\n', '\n')

    for i, step in enumerate(spec['steps']):
        if 'send' in step:
            os.write(fd, step['send'].encode('latin1'))
            last_send = time.monotonic()
        elif 'sleep' in step:
            end = time.monotonic() + step['sleep']
            while time.monotonic() < end:
                pump(max(0.0, end - time.monotonic()))
        elif 'expect' in step:
            pat = re.compile(step['expect'], re.M)
            end = time.monotonic() + step.get('timeout', 10)
            name = step.get('name', 'step %d: %s' % (i, step['expect']))
            alive = True
            while True:
                m = pat.search(screen(), pos)
                if m:
                    pos = m.end()
                    timings[name] = round((time.monotonic() - last_send) * 1000, 1)
                    break
                left = end - time.monotonic()
                if left <= 0 or not alive:
                    failed = name
                    break
                alive = pump(min(left, 0.05))
            if failed:
                break
    # let it finish (or kill it)
    end = time.monotonic() + 5
    while time.monotonic() < end:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
            break
        if not pump(0.05):
            pass
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    try:
        while pump(0.01):
            if not select.select([fd], [], [], 0)[0]:
                break
    except OSError:
        pass
    print(json.dumps({'ok': failed is None, 'failed': failed, 'screen': screen(), 'raw': raw.decode('latin1'),
                      'timings': timings, 'status': status}))


if __name__ == '__main__':
    main()
