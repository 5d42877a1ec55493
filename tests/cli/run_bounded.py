#!/usr/bin/env python3
# tests/cli/run_bounded.py: runs one command and says how it ended, for test_bounds.sh.
#
#   run_bounded.py [--stdin FILE] [--timeout S] -- CMD ARG...
#
# Prints "rc=N rss_kb=M" and then the command's stderr on one line (its lines joined by
# " | ", at most 2,000 characters): N is the exit
# status (124 when it ran past the timeout, 30 s by default, and was killed), M the most
# memory it held (its rusage, from wait4).
import os
import signal
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    stdin, timeout = subprocess.DEVNULL, 30.0
    while args and args[0] != "--":
        if args[0] == "--stdin":
            stdin = open(args[1], "rb")
        elif args[0] == "--timeout":
            timeout = float(args[1])
        args = args[2:]
    p = subprocess.Popen(args[1:], stdin=stdin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    os.set_blocking(p.stderr.fileno(), False)
    err = b""
    deadline = time.monotonic() + timeout
    killed = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        try:
            err += p.stderr.read() or b""
        except BlockingIOError:
            pass
        if pid:
            break
        if time.monotonic() > deadline and not killed:
            os.killpg(p.pid, signal.SIGKILL)
            killed = True
        time.sleep(0.02)
    rc = 124 if killed else os.waitstatus_to_exitcode(status)
    lines = err.decode("utf-8", "backslashreplace").splitlines()
    print("rc=%d rss_kb=%d" % (rc, ru.ru_maxrss))
    print(" | ".join(lines)[:2000])


if __name__ == "__main__":
    main()
