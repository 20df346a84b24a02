#!/usr/bin/python3
"""The live view's page in a real browser: Debian's chromium, headless,
driven over its DevTools protocol (a WebSocket; the client below is the
standard library's sockets), loads the page of a running real-time system
and, after a few seconds, shows each variable in its data-variable element,
values that changed many times, plots with points drawn, the lateness
histogram filled; tuning from the page's own form reaches the run.
Exit 77 (skipped) only when chromium is not installed.

usage: test_serve_page.py RTCOSIM DAHLQUIST_FMU [SCREENSHOT.png]"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devtools  # noqa: E402

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
                                "--stop-time", "60", "--start-value", "plant.k", "0.2",
                                "--serve", "0", "-q", "--output-file", "out.csv"],
                               cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        m = re.search(r"live view: (http://127\.0\.0\.1:(\d+)/)", run.stderr.readline())
        assert m, "no live view line"
        url, port = m.group(1), int(m.group(2))
        print("live view at", url)
        browser, dt = devtools.launch(os.path.join(tmp, "profile"))
        dt.call("Page.enable")
        dt.call("Page.navigate", url=url)
        # The page is up when its table is (a loaded machine may take seconds).
        for _ in range(300):
            if dt.js("document.querySelector('[data-variable=\"plant.x\"]') !== null"):
                break
            time.sleep(0.1)
        time.sleep(4)
        cell = dt.js("(() => { const c = document.querySelector('[data-variable=\"plant.x\"]');"
                     " return c ? [c.textContent, Number(c.dataset.changes || 0)] : null; })()")
        assert cell, "no element with data-variable=\"plant.x\""
        first = float(cell[0])
        print("plant.x shown as", cell[0], "after", cell[1], "changes")
        assert cell[1] >= 20, cell  # 50 Hz for 4 s on an idle machine; 20 on a loaded one
        points = dt.js("[...document.querySelectorAll('#plots canvas')].map(c => Number(c.dataset.points))")
        assert points and points[0] >= 20, points
        # Pixels drawn on the plot: not just a blank canvas.
        inked = dt.js("(() => { const c = document.querySelector('#plots canvas');"
                      " const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
                      " let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n; })()")
        assert inked > 1000, inked
        frames = dt.js("Number(document.getElementById('histogram').dataset.frames || 0)")
        assert frames >= 1000, frames
        assert dt.js("document.getElementById('state').textContent") == "running"
        # Tune from the page's own form; x's decay speeds up: k 0.2 -> 3.
        dt.js("document.getElementById('tune-name').value = 'plant.k';"
              "document.getElementById('tune-value').value = '3';"
              "document.getElementById('tune-set').click(); true")
        time.sleep(1.5)
        later = float(dt.js("document.querySelector('[data-variable=\"plant.x\"]').textContent"))
        assert later < first, (first, later)
        assert dt.js("document.querySelector('#tuned td') && document.querySelector('#tuned td').textContent") == "plant.k"
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
