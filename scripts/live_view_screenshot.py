#!/usr/bin/python3
"""A screenshot of a running live view (rtcosim run|demo --serve), taken by
Debian's headless chromium, for the documentation (not committed: look at it
and describe it). usage: live_view_screenshot.py URL OUT.png [SECONDS]"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "serve"))
import devtools  # noqa: E402

url, out = sys.argv[1], sys.argv[2]
wait = float(sys.argv[3]) if len(sys.argv) > 3 else 5
profile = tempfile.mkdtemp(prefix="rtcosim-shot-")
browser = None
try:
    browser, dt = devtools.launch(profile, "1280,1400")
    dt.call("Page.enable")
    dt.call("Page.navigate", url=url)
    time.sleep(wait)
    devtools.screenshot(dt, out)
    print("wrote", out)
finally:
    if browser:
        browser.kill()
        browser.wait()
    shutil.rmtree(profile, ignore_errors=True)
