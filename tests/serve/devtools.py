"""Headless chromium over its DevTools protocol for the live view's tests
and its screenshot (scripts/live_view_screenshot.py): a WebSocket client
(RFC 6455, text frames) on the standard library's sockets."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import time
import urllib.request


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


def launch(profile, size="1280,1000", timeout=60):
    """Debian's chromium, headless, with a fresh profile; its first page target
    (an AssertionError when chromium has not shown one within `timeout` s)."""
    browser = subprocess.Popen([shutil.which("chromium"), "--headless", "--no-sandbox",
                                "--disable-gpu", "--disable-quic", "--no-first-run",
                                "--disable-background-networking", "--disable-component-update",
                                "--disable-sync", f"--user-data-dir={profile}",
                                "--remote-debugging-port=0", f"--window-size={size}",
                                "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        return browser, DevTools(_page_target(browser, profile, timeout))
    except BaseException:
        browser.kill()
        browser.wait()
        raise


def _page_target(browser, profile, timeout):
    """The WebSocket URL of chromium's first page target. Chromium writes its
    port when it listens; a loaded machine may take many seconds to start it:
    wait for what is needed, up to `timeout` s."""
    port_file = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + timeout
    while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
        if browser.poll() is not None:
            raise AssertionError(f"chromium exited ({browser.returncode}) before it listened")
        if time.monotonic() >= deadline:
            raise AssertionError(f"chromium wrote no {port_file} in {timeout:g} s")
        time.sleep(0.1)
    devtools_port = int(open(port_file).read().split()[0])
    while True:
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{devtools_port}/json/list",
                                                   timeout=30))
        page = next((t for t in targets if t["type"] == "page"), None)
        if page:
            return page["webSocketDebuggerUrl"]
        if time.monotonic() >= deadline:
            raise AssertionError(f"chromium showed no page target in {timeout:g} s: {targets}")
        time.sleep(0.1)


def screenshot(dt, path):
    shot = dt.call("Page.captureScreenshot", format="png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(shot["data"]))
