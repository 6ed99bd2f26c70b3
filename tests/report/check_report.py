"""Checks one `iolens report` page against its JSON form and the log's counters.

    check_report.py REPORT.html REPORT.json [DARSHAN_TEXT]

The page must be self-contained (no script, no external resource), balanced, under 5 MB, with
every section present and a "no data" note exactly where its data is missing; the numbers
drawn must be those of the JSON form, and with DARSHAN_TEXT (`iolens darshan LOG`) the
operation counts and bytes must be the sums of the log's counters."""
import html.parser
import json
import re
import sys

SECTIONS = ["job", "cost", "ops", "sizes", "category", "heatmap", "timeline", "diagnosis", "whatif", "clusters"]
VOID = {"meta", "br", "hr", "img", "input", "link", "rect", "line", "circle", "path", "polyline"}


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.sections, self.nodata, self.cur = [], [], [], {}, None
        self.values = {}  # svg id -> list of data-value of its rects
        self.svg = None
        self.cells = {}   # section -> table rows (lists of cell texts)
        self.row = None
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.errors.append("a <script> element")
        for k, v in attrs:
            local = k == "href" and v and v.endswith(".json") and ":" not in v  # the timeline beside it
            if (k in ("src", "href") and not local) or (v and re.search(r"url\(|https?:", v)):
                self.errors.append("an external reference: %s=%r" % (k, v))
        if tag == "section":
            self.cur = a.get("id")
            self.sections.append(self.cur)
        if tag == "svg":
            self.svg = a.get("id")
            self.values.setdefault(self.svg, [])
        if tag == "rect" and self.svg and "data-value" in a:
            self.values[self.svg].append(float(a["data-value"]))
        if tag == "p" and a.get("class") == "nodata" and self.cur:
            self.nodata[self.cur] = True
        if tag == "tr":
            self.row = []
        if tag in ("td", "th"):
            self.cell = ""
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag == "svg":
            self.svg = None
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.cells.setdefault(self.cur, []).append(self.row)
            self.row = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell += d


def main():
    page_path, json_path = sys.argv[1], sys.argv[2]
    text = open(page_path, encoding="utf-8").read()
    data = json.load(open(json_path))
    p = Page()
    p.feed(text)
    p.close()
    bad = list(p.errors)
    if len(text.encode()) > 5 * 1024 * 1024:
        bad.append("%d bytes: more than 5 MiB" % len(text.encode()))
    if p.stack:
        bad.append("unclosed elements: %s" % p.stack)
    if p.sections != SECTIONS:
        bad.append("sections %s, want %s" % (p.sections, SECTIONS))
    mods = data["modules"]
    # a "no data" note exactly where the data is missing
    want_nodata = {
        "cost": not mods, "ops": not mods, "category": not mods,
        "heatmap": not data["heatmaps"], "timeline": not data["timeline"]["segments"],
        "whatif": data["whatif"] is None,
        "clusters": data["clusters"] is None,
    }
    for sec, missing in want_nodata.items():
        if bool(p.nodata.get(sec)) != missing:
            bad.append("section %s: %s" % (sec, "no 'no data' note for missing data" if missing
                                           else "a 'no data' note beside its data"))
    # bars drawn = JSON numbers
    if mods:
        got = p.values.get("ops-chart", [])
        want = []
        for m in mods:
            o = m["operations"]
            want += [v for v in (o["read"], o["write"], o["open"] + o["stat"] + o["seek"] + o["sync"]) if v > 0]
        if sorted(got) != sorted(float(v) for v in want):
            bad.append("ops chart bars %s, JSON %s" % (got, want))
        rows = p.cells.get("ops", [])[1:]
        for m, r in zip(mods, rows):
            if int(r[1]) != m["operations"]["read"] or int(r[7]) != m["bytes_read"] or int(r[8]) != m["bytes_written"]:
                bad.append("ops table row %s against JSON %s" % (r, m))
    if data["diagnosis"]:
        probs = data["diagnosis"]["probabilities"]
        got = sorted(p.values.get("probabilities", []))
        want = sorted(v for v in probs.values() if v > 0)
        if any(abs(a - b) > 1e-6 for a, b in zip(got, want)) or len(got) != len(want):
            bad.append("probability bars %s, JSON %s" % (got, want))
    if len(sys.argv) > 3:  # the log's own counters: sums over its records
        sums = {}
        for line in open(sys.argv[3]):
            f = line.split("\t")
            if len(f) >= 5 and not line.startswith("#"):
                try:
                    sums[f[3]] = sums.get(f[3], 0) + max(int(f[4]), 0)
                except ValueError:
                    pass
        for m in mods:
            pfx = m["module"]
            if pfx not in ("POSIX", "STDIO"):
                continue
            for key, name in (("bytes_read", "BYTES_READ"), ("bytes_written", "BYTES_WRITTEN")):
                c = "%s_%s" % (pfx, name)
                if c in sums and sums[c] != m[key]:
                    bad.append("%s: report %d, log %d" % (c, m[key], sums[c]))
            c = pfx + "_READS"
            if c in sums and sums[c] != m["operations"]["read"]:
                bad.append("%s: report %d, log %d" % (c, m["operations"]["read"], sums[c]))
    for b in bad:
        print("%s: %s" % (page_path, b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
