"""Checks a `iolens view --chrome-trace` file against the Trace Event Format (JSON object form):
an object with a "traceEvents" array of complete ("X") and metadata ("M") events with the fields
and types the format gives them; complete events of one thread that are nested (deeper calls)
lie inside an event of the same thread; the number of call events is the expected one.

    check_chrome.py TIMELINE.json EXPECTED_CALLS"""
import json
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    want = int(sys.argv[2])
    bad = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        print("not an object with a traceEvents array")
        return 1
    if doc.get("displayTimeUnit") not in (None, "ms", "ns"):
        bad.append("displayTimeUnit %r" % doc["displayTimeUnit"])
    xs = []
    for i, e in enumerate(doc["traceEvents"]):
        ph = e.get("ph")
        if not isinstance(e.get("name"), str) or ph not in ("X", "M"):
            bad.append("event %d: name %r, ph %r" % (i, e.get("name"), ph))
            continue
        if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            bad.append("event %d: pid/tid not integers" % i)
        if ph == "M":
            if e["name"] not in ("process_name", "thread_name", "process_sort_index", "thread_sort_index") or \
                    not isinstance(e.get("args", {}).get("name", ""), str):
                bad.append("event %d: bad metadata event %r" % (i, e))
            continue
        if not all(isinstance(e.get(k), (int, float)) for k in ("ts", "dur")) or e["ts"] < 0 or e["dur"] < 0:
            bad.append("event %d: ts/dur %r %r" % (i, e.get("ts"), e.get("dur")))
        if not isinstance(e.get("cat", ""), str) or not isinstance(e.get("args", {}), dict):
            bad.append("event %d: cat/args" % i)
        xs.append(e)
    if len(xs) != want:
        bad.append("%d call events, want %d" % (len(xs), want))
    # nesting: a depth-1 call lies within a depth-0 call of its thread (to the rounding of ts)
    outer = {}
    for e in xs:
        if e.get("args", {}).get("depth") == 0:
            outer.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for e in xs:
        if e.get("args", {}).get("depth", 0) > 0:
            spans = outer.get((e["pid"], e["tid"]), [])
            if not any(a - 0.002 <= e["ts"] and e["ts"] + e["dur"] <= b + 0.002 for a, b in spans):
                bad.append("nested call %s at %s outside every outer call of its thread" % (e["name"], e["ts"]))
                break
    for b in bad[:10]:
        print("%s: %s" % (sys.argv[1], b))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
