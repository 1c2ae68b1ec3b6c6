"""What a process costs the machine, counted rather than timed: syscalls (strace -c),
context switches and CPU time (/proc, or getrusage for a child that has exited).
Counts do not drift with the emulator's speed the way times do.

A figure per unit (per intent, per received frame) is the difference of two
measurements of different lengths divided by the difference of their units, so that
attaching, start-up and warm-up drop out."""

import os
import resource
import signal
import subprocess
import time
from pathlib import Path


def context_switches(pid):
    """Voluntary + involuntary context switches of each thread of a running process, by
    thread ID (threads come and go: the Swift runtime's pool ends idle ones)."""
    by_thread = {}
    for task in Path("/proc/%d/task" % pid).iterdir():
        try:
            lines = (task / "status").read_text().splitlines()
        except OSError:
            continue  # the thread ended meanwhile
        by_thread[task.name] = sum(int(line.split()[1]) for line in lines
                                   if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")))
    return by_thread


def cpu_split(pid):
    """(user, system) CPU seconds of a running process so far."""
    fields = Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def cpu_seconds(pid):
    """User + system CPU time of a running process so far."""
    return sum(cpu_split(pid))


def process_counters(pid):
    user, system = cpu_split(pid)
    return {"cpu_s": user + system, "user_s": user, "context_switches": context_switches(pid)}


def children_counters():
    """The same counters over every child this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"cpu_s": usage.ru_utime + usage.ru_stime, "user_s": usage.ru_utime,
            "context_switches": usage.ru_nvcsw + usage.ru_nivcsw}


def difference(after, before):
    """after - before per counter; a per-thread counter counts the threads alive at both
    ends, so that a thread that ended meanwhile does not make the difference negative
    (what it did in the window is lost: a small undercount)."""
    result = {}
    for key, value in after.items():
        if isinstance(value, dict):
            result[key] = sum(count - before[key][tid] for tid, count in value.items() if tid in before[key])
        else:
            result[key] = value - before[key]
    return result


def parse_strace_summary(text):
    """`strace -c` output -> {syscall: calls}; "total" holds the sum."""
    calls = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 5 or not fields[3].isdigit():
            continue
        calls[fields[-1]] = int(fields[3])
    if "total" not in calls:
        raise ValueError("no strace summary in:\n" + text[-2000:])
    return calls


class Strace:
    """Counts the syscalls of a running process (every thread) while the block runs."""

    def __init__(self, pid, out):
        self.pid, self.out = pid, Path(out)

    def __enter__(self):
        self.proc = subprocess.Popen(["strace", "-f", "-c", "-qq", "-o", str(self.out), "-p", str(self.pid)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # strace attaches to each thread in turn; give it time before the measured work.
        time.sleep(1.0)
        if self.proc.poll() is not None:
            raise SystemExit("strace -p %d exited: %s" % (self.pid, self.proc.stderr.read().decode(errors="replace")))
        return self

    def __exit__(self, *exc):
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=60)
        self.calls = parse_strace_summary(self.out.read_text())
        return False


def traced_command(argv, out):
    """argv under `strace -f -c` (the whole process and its threads)."""
    return ["strace", "-f", "-c", "-qq", "-o", str(out)] + list(argv)


def per_unit(short, long, units_short, units_long):
    """(long - short) / (units_long - units_short) for each counter of two measurements."""
    units = units_long - units_short
    if units <= 0:
        raise ValueError("the longer measurement has no more units (%s vs %s)" % (units_long, units_short))
    keys = set(short) | set(long)
    return {key: (long.get(key, 0) - short.get(key, 0)) / units for key in keys}


def cpu_figure(untraced):
    """CPU, user CPU (µs) and context switches per unit from two untraced measurements
    ((values, units) of the short and the long run)."""
    (short, short_units), (long, long_units) = untraced
    per = per_unit(short, long, short_units, long_units)
    return {"cpu_us": per["cpu_s"] * 1e6, "user_us": per["user_s"] * 1e6, "context_switches": per["context_switches"]}


def figure(untraced, traced):
    """One row of figures per unit from two measurements each: `cpu_figure` of the
    untraced runs, syscalls (the total and by name) from the traced ones."""
    (short, short_units), (long, long_units) = traced
    calls = per_unit(short, long, short_units, long_units)
    return dict(cpu_figure(untraced), syscalls=calls.pop("total"), by_syscall=calls)
