#!/usr/bin/env python3
"""Record what Debian 12's awk (mawk 1.3.4 20200120, /usr/bin/awk on this Debian 12 host and in the
real guest) prints for each case of test/machine/awk_cases.json, and write the file back with the
expected stdout, stderr and exit status. The unit test (test/machine/awk.test.ts) runs the same
cases through the machine's awk and compares. Run: python3 scripts/awk/record_cases.py"""
import json, os, subprocess, sys, tempfile
here = os.path.dirname(os.path.abspath(__file__))
path = os.path.join(here, '..', '..', 'test', 'machine', 'awk_cases.json')
ver = subprocess.run(['awk', '-W', 'version'], capture_output=True, text=True).stdout.splitlines()[0]
if not ver.startswith('mawk 1.3.4 20200120'):
    sys.exit(f'awk here is {ver!r}, not Debian 12\'s mawk 1.3.4 20200120')
cases = json.load(open(path))
with tempfile.TemporaryDirectory() as d:
    for c in cases:
        files = c.get('files', {})
        for name, text in files.items():
            open(os.path.join(d, name), 'w').write(text)
        r = subprocess.run(['awk'] + c['args'], input=c.get('input', ''), capture_output=True, text=True, cwd=d)
        c['out'] = r.stdout
        c['status'] = r.returncode
        c['err'] = r.stderr
json.dump(cases, open(path, 'w'), indent=1)
open(path, 'a').write('\n')
print(f'{len(cases)} cases recorded with {ver}')
