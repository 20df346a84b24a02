"""Waiting for what a live-view test checks instead of sleeping a guessed
time: a loaded CI machine (2 cores, the ASan+UBSan build beside) may take
seconds for what an idle one does in milliseconds. Poll until the condition
holds; fail only after a generous deadline, naming what was awaited and
what was seen last."""
import time

DEADLINE = 60.0  # seconds; an idle machine needs well under one


def wait_for(what, get, ok=bool, timeout=DEADLINE, interval=0.05):
    """get() until ok(its value); that value. After `timeout` seconds an
    AssertionError saying `what` was awaited and the last value seen."""
    end = time.monotonic() + timeout
    while True:
        seen = get()
        if ok(seen):
            return seen
        if time.monotonic() >= end:
            raise AssertionError(f"waited {timeout:g} s for {what}; last seen: {seen!r}")
        time.sleep(interval)
