"""What the results tests share to run the CLI and read what it wrote."""
import os
import subprocess


def runner(rtcosim):
    """run(*args, env=None, ok=True): rtcosim with these arguments (env added to
    this process's), asserting it succeeded (or, ok=False, failed)."""
    def run(*args, env=None, ok=True):
        r = subprocess.run([rtcosim, *args], capture_output=True, text=True,
                           env=dict(os.environ, **(env or {})))
        assert (r.returncode == 0) == ok, (args, r.returncode, r.stderr)
        return r
    return run


def read(path):
    with open(path, "rb") as f:
        return f.read()
