"""Renders report pages in one headless Chromium and checks what each section draws.

    render_pages.py CHROMIUM PAGE.html...

One browser process for every page, driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ended by a NUL byte on descriptors 3 and 4), so a page
costs a navigation, not a browser start. For each page: no console message, no uncaught
exception, no failed load; and in each section that has data (no "no data" note), something
drawn beside its heading: an element with an area and either text or an SVG shape, measured by
a script evaluated in the page after it loaded. Text of an SVG chart that reaches outside its
chart's box is reported as clipped. Prints one line per page and a line per failure; exits 1
on a failure. Every wait has a generous cap (no clock in the verdict: a busy machine only makes
it slower)."""
import json
import os
import select
import subprocess
import sys
import tempfile

CAP_SECONDS = 300  # the whole wait for one answer; a quiet machine answers within a second

MEASURE = r"""
(() => {
  const out = {};
  for (const sec of document.querySelectorAll('section[id]')) {
    const r = {nodata: !!sec.querySelector('p.nodata'), drawn: 0, clipped: []};
    for (const el of sec.querySelectorAll('*')) {
      if (el.tagName === 'H2' && el.parentElement === sec) continue;
      const cs = getComputedStyle(el);
      if (cs.display === 'none' || cs.visibility === 'hidden') continue;
      const b = el.getBoundingClientRect();
      if (b.width <= 0 || b.height <= 0) continue;
      const shape = el instanceof SVGGeometryElement || el instanceof SVGTextElement;
      const text = !(el instanceof SVGElement) && [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (shape || text) r.drawn++;
      if (el instanceof SVGTextElement && el.ownerSVGElement) {
        const s = el.ownerSVGElement.getBoundingClientRect();
        if (b.left < s.left - 1 || b.right > s.right + 1 || b.top < s.top - 1 || b.bottom > s.bottom + 1)
          r.clipped.push(el.textContent.trim().slice(0, 40));
      }
    }
    out[sec.id] = r;
  }
  return JSON.stringify(out);
})()
"""


class Browser:
    def __init__(self, chrome, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [chrome, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--user-data-dir=" + profile, "--remote-debugging-pipe", "--window-size=1000,4000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=fds, pass_fds=(3, 4))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self):
        while b"\0" not in self.buf:
            ready, _, _ = select.select([self.from_chrome], [], [], CAP_SECONDS)
            if not ready:
                raise RuntimeError("no answer from Chromium in %d s" % CAP_SECONDS)
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe (exit %s)" % self.proc.poll())
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None):
        want = self.send(method, params, session)
        while True:
            m = self.read()
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, name, session):
        for i, m in enumerate(self.events):
            if m.get("method") == name and m.get("sessionId") == session:
                del self.events[i]
                return m
        while True:
            m = self.read()
            if m.get("method") == name and m.get("sessionId") == session:
                return m
            self.events.append(m)

    def close(self):
        try:
            self.send("Browser.close")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=CAP_SECONDS)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def problems_of(events, session):
    """Console messages, exceptions and failed loads the page reported."""
    bad = []
    for m in events:
        if m.get("sessionId") != session:
            continue
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled":
            bad.append("console %s: %s" % (p.get("type"), " ".join(str(a.get("value", "")) for a in p.get("args", []))))
        elif m.get("method") == "Runtime.exceptionThrown":
            bad.append("uncaught: %s" % p.get("exceptionDetails", {}).get("text"))
        elif m.get("method") == "Log.entryAdded":
            e = p.get("entry", {})
            bad.append("log %s: %s" % (e.get("level"), e.get("text")))
        elif m.get("method") == "Network.loadingFailed":
            bad.append("failed load: %s" % p.get("errorText"))
    return bad


def main():
    chrome, pages = sys.argv[1], sys.argv[2:]
    failures = 0
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(chrome, profile)
        try:
            for page in pages:
                target = b.call("Target.createTarget", {"url": "about:blank"})["targetId"]
                s = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
                for dom in ("Page", "Runtime", "Log", "Network"):
                    b.call(dom + ".enable", session=s)
                b.call("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=s)
                b.wait_event("Page.loadEventFired", s)
                res = b.call("Runtime.evaluate", {"expression": MEASURE, "returnByValue": True}, session=s)
                bad = problems_of(b.events, s)
                b.events = [m for m in b.events if m.get("sessionId") != s]
                secs = json.loads(res["result"]["value"]) if res.get("result", {}).get("type") == "string" else {}
                if "diagnosis" not in secs:
                    bad.append("not rendered: no diagnosis section in the DOM")
                for sid, r in secs.items():
                    if not r["nodata"] and r["drawn"] == 0:
                        bad.append("section %s draws nothing" % sid)
                    if r["clipped"]:
                        bad.append("section %s: clipped labels %s" % (sid, r["clipped"][:5]))
                b.call("Target.closeTarget", {"targetId": target})
                print("%s: %s" % (page, " ".join("%s=%d" % (k, v["drawn"]) for k, v in secs.items())))
                for x in bad:
                    print("FAIL: %s: %s" % (page, x))
                failures += bool(bad)
        finally:
            b.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
