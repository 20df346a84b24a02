#!/usr/bin/python3
"""The live view's page in a real browser: Debian's chromium, headless,
driven over its DevTools protocol (a WebSocket; the client below is the
standard library's sockets), loads the page of a running real-time system
and shows each variable in its data-variable element, values that changed
many times, plots with points drawn, the lateness histogram filled; tuning
from the page's own form reaches the run. Each check waits for the page to
get there (a loaded machine may take seconds), up to a generous deadline.
Exit 77 (skipped) only when chromium is not installed.

usage: test_serve_page.py RTCOSIM DAHLQUIST_FMU [SCREENSHOT.png]"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402
from waiting import wait_for  # noqa: E402

RTCOSIM, FMU = sys.argv[1], sys.argv[2]
SHOT = sys.argv[3] if len(sys.argv) > 3 else None
CHROMIUM = shutil.which("chromium")
if not CHROMIUM:
    print("chromium not installed: skipped")
    sys.exit(77)


def main():
    tmp = tempfile.mkdtemp(prefix="rtcosim-page-")
    run = browser = None
    try:
        with open(os.path.join(tmp, "decay.ssd"), "w") as f:
            f.write(f"""<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="decay"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription">
  <ssd:System name="decay"><ssd:Elements>
    <ssd:Component name="plant" source="{FMU}"/>
  </ssd:Elements></ssd:System>
</ssd:SystemStructureDescription>
""")
        run = subprocess.Popen([RTCOSIM, "run", "decay.ssd", "--real-time", "--step-size", "0.001",
                                "--stop-time", "600", "--start-value", "plant.k", "0.2",
                                "--serve", "0", "-q", "--output-file", "out.csv"],
                               cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        m = re.search(r"live view: (http://127\.0\.0\.1:(\d+)/)", run.stderr.readline())
        assert m, "no live view line"
        url, port = m.group(1), int(m.group(2))
        print("live view at", url)
        browser, dt = devtools.launch(os.path.join(tmp, "profile"))
        dt.call("Page.enable")
        dt.call("Page.navigate", url=url)
        # The page is up when its table is.
        wait_for("an element with data-variable=\"plant.x\"",
                 lambda: dt.js("document.querySelector('[data-variable=\"plant.x\"]') !== null"))
        # What the stream has shown so far: plant.x's text and how many times
        # it changed, the points of the plots and their pixels inked (not just
        # a blank canvas), the frames in the lateness histogram, the state.
        page = wait_for(
            "plant.x changed 20 times, 20 points plotted and inked, 1000 frames in the histogram",
            lambda: dt.js(
                "(() => { const c = document.querySelector('[data-variable=\"plant.x\"]');"
                " const p = document.querySelector('#plots canvas');"
                " let inked = 0;"
                " if (p) { const d = p.getContext('2d').getImageData(0, 0, p.width, p.height).data;"
                "          for (let i = 3; i < d.length; i += 4) if (d[i]) inked++; }"
                " return {text: c.textContent, changes: Number(c.dataset.changes || 0),"
                "   points: [...document.querySelectorAll('#plots canvas')].map(c => Number(c.dataset.points)),"
                "   inked: inked,"
                "   frames: Number(document.getElementById('histogram').dataset.frames || 0),"
                "   state: document.getElementById('state').textContent}; })()"),
            lambda p: (p["changes"] >= 20 and p["points"] and p["points"][0] >= 20
                       and p["inked"] > 1000 and p["frames"] >= 1000),
            interval=0.2)
        first = float(page["text"])
        print("plant.x shown as", page["text"], "after", page["changes"], "changes;",
              page["points"], "points,", page["inked"], "pixels inked,", page["frames"], "frames")
        assert page["state"] == "running", page
        # Tune from the page's own form; x's decay speeds up: k 0.2 -> 3.
        dt.js("document.getElementById('tune-name').value = 'plant.k';"
              "document.getElementById('tune-value').value = '3';"
              "document.getElementById('tune-set').click(); true")
        # The page lists the request once the view accepted it, and the
        # stream's statistics count it once the run applied it.
        wait_for("the page to list the request in #tuned",
                 lambda: dt.js("document.querySelector('#tuned td') && "
                               "document.querySelector('#tuned td').textContent"),
                 lambda name: name == "plant.k")
        wait_for("the stream to say the run applied the request (stats.tuning_applied)",
                 lambda: dt.js("lastStats && lastStats.tuning_applied"), lambda n: n and n >= 1)
        wait_for(f"plant.x shown below {first}",
                 lambda: float(dt.js("document.querySelector('[data-variable=\"plant.x\"]').textContent")),
                 lambda later: later < first)
        if SHOT:
            devtools.screenshot(dt, SHOT)
            print("screenshot in", SHOT)
        # The page's stop button ends the run with its results.
        dt.js("document.getElementById('control-stop').click(); true")
        out, err = run.communicate(timeout=60)
        assert run.returncode == 0, err
        assert "tuned: plant.k = 3 at t = " in out, out
        print("the page saw values change, drew its plots, tuned and stopped the run")
    finally:
        if browser:
            browser.kill()
            browser.wait()
        if run and run.poll() is None:
            run.kill()
            run.wait()
        shutil.rmtree(tmp, ignore_errors=True)


main()
