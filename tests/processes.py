"""Which processes a process started, read from /proc (Linux), to check that nothing of ours outlives a stop."""

from __future__ import annotations

import time
from pathlib import Path


def children(pid: int) -> set[int]:
    """The direct children of ``pid`` (every thread's), or nothing when it is gone."""
    found: set[int] = set()
    for listing in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            found.update(int(word) for word in listing.read_text().split())
        except OSError:
            continue
    return found


def descendants(pid: int) -> set[int]:
    """Every process below ``pid``: children, their children, and so on."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children(todo.pop()) - found:
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def in_group(pgid: int) -> set[int]:
    """The running processes of process group ``pgid`` (a process started in a session of its own, and whatever it
    started: they stay in the group even once their parent is gone)."""
    found: set[int] = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.add(int(stat.parent.name))
    return found


def still_running(pids: set[int], timeout: float = 60) -> dict[int, str]:
    """Those of ``pids`` still running after up to ``timeout`` seconds, with their command lines. It returns as soon
    as they are all gone; the limit is generous, as a loaded machine can be slow to end a process."""
    deadline = time.monotonic() + timeout
    while True:
        running = {pid: command_line(pid) for pid in pids if alive(pid)}
        if not running or time.monotonic() >= deadline:
            return running
        time.sleep(0.05)
