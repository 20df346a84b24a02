"""Runs the Python package's tests with pytest from ctest. Exits 77 (ctest:
skipped) with a message when a Debian package they need is missing."""
import importlib.util
import os
import sys

# The sanitizer runtime preloaded for this Python (sanitizer builds) must not
# reach the instrumented CLI processes the tests start.
os.environ.pop("LD_PRELOAD", None)

MISSING = [(module, package) for module, package in
           [("numpy", "python3-numpy"), ("pytest", "python3-pytest"), ("can", "python3-can"),
            ("scipy", "python3-scipy"), ("matplotlib", "python3-matplotlib")]
           if importlib.util.find_spec(module) is None]
if MISSING:
    print("SKIPPED: the Python tests need " + ", ".join(p for _, p in MISSING)
          + " (install with: apt-get install " + " ".join(p for _, p in MISSING) + ")")
    sys.exit(77)

import pytest  # noqa: E402

# No cache directory: tests never write into the working directory.
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", sys.argv[1], sys.argv[1]]))
