#!/usr/bin/python3
"""The live view's page in a real browser: Debian's chromium, headless,
driven over its DevTools protocol (a WebSocket; the client below is the
standard library's sockets), loads the page of a running real-time system
and, after a few seconds, shows each variable in its data-variable element,
values that changed many times, plots with points drawn, the lateness
histogram filled; tuning from the page's own form reaches the run.
Exit 77 (skipped) only when chromium is not installed.

usage: test_serve_page.py RTCOSIM DAHLQUIST_FMU [SCREENSHOT.png]"""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request

RTCOSIM, FMU = sys.argv[1], sys.argv[2]
SHOT = sys.argv[3] if len(sys.argv) > 3 else None
CHROMIUM = shutil.which("chromium")
if not CHROMIUM:
    print("chromium not installed: skipped")
    sys.exit(77)


class DevTools:
    """A WebSocket client (RFC 6455, text frames) for one DevTools target."""

    def __init__(self, url):
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        self.sock = socket.create_connection((m.group(1), int(m.group(2))), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {m.group(3)} HTTP/1.1\r\nHost: {m.group(1)}:{m.group(2)}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(1)
        assert head.startswith(b"HTTP/1.1 101"), head
        self.next_id = 0

    def _recv_exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            assert chunk, "DevTools closed"
            data += chunk
        return data

    def _recv(self):
        message = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            message += self._recv_exact(n)
            if b0 & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        data = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        mask = os.urandom(4)
        head = bytes([0x81])
        n = len(data)
        head += bytes([0x80 | n]) if n < 126 else (bytes([0x80 | 126]) + struct.pack(">H", n)
                                                     if n < 65536 else
                                                     bytes([0x80 | 127]) + struct.pack(">Q", n))
        self.sock.sendall(head + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(data)))
        while True:
            reply = self._recv()
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                return reply["result"]

    def js(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        assert "exceptionDetails" not in r, r
        return r["result"].get("value")


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
        profile = os.path.join(tmp, "profile")
        browser = subprocess.Popen([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                                    "--disable-quic", "--no-first-run",
                                    "--disable-background-networking",
                                    "--disable-component-update", "--disable-sync",
                                    f"--user-data-dir={profile}", "--remote-debugging-port=0",
                                    "--window-size=1280,1000", "about:blank"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(profile, "DevToolsActivePort")
        for _ in range(300):
            if os.path.exists(port_file) and open(port_file).read().count("\n") >= 1:
                break
            time.sleep(0.1)
        devtools_port = int(open(port_file).read().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools_port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        dt = DevTools(page["webSocketDebuggerUrl"])
        dt.call("Page.enable")
        dt.call("Page.navigate", url=url)
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
            shot = dt.call("Page.captureScreenshot", format="png")
            with open(SHOT, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
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
