#!/usr/bin/env python3
"""Turns the CSV of bench/replay/fidelity.sh into the Markdown table of docs/REPLAY-CONFIG.md.

    python3 bench/replay/fidelity_table.py fid.csv [TOLERANCE]

Per cell: the original's median bandwidths, the median ratios replay/original (config and on the
fly, write and read) and the A/A control (the original against itself). A ratio more than
TOLERANCE (default 0.10) from 1 is in bold. Under the table: how many ratios are within it, and
how many are within the control's own distance from 1 (where the control strays by more, the
tolerance cannot be resolved in that cell)."""
import csv
import sys


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    tol = float(sys.argv[2]) if len(sys.argv) > 2 else 0.10
    pct = "%g%%" % (tol * 100)
    out = ["| mode | transfer | ranks | orig W MB/s | cfg_w | otf_w | aa_w | orig R MB/s | cfg_r | otf_r | aa_r |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    within = {k: 0 for k in ("cfg_w", "otf_w", "cfg_r", "otf_r")}
    within_aa = dict(within)

    def fmt(v):
        return "%.3f" % v if abs(v - 1) <= tol else "**%.3f**" % v

    for r in rows:
        v = {k: float(r[k + "_ratio"]) for k in ("cfg_w", "otf_w", "cfg_r", "otf_r", "aa_w", "aa_r")}
        for k in within:
            within[k] += abs(v[k] - 1) <= tol
            aa = v["aa_" + k[-1]]
            within_aa[k] += abs(v[k] - 1) <= max(tol, abs(aa - 1))
        out.append("| %s | %s | %s | %.0f | %s | %s | %s | %.0f | %s | %s | %s |" % (
            r["mode"], r["transfer"], r["ranks"], float(r["orig_w"]) / 1e6, fmt(v["cfg_w"]), fmt(v["otf_w"]),
            fmt(v["aa_w"]), float(r["orig_r"]) / 1e6, fmt(v["cfg_r"]), fmt(v["otf_r"]), fmt(v["aa_r"])))
    n = len(rows)
    out.append("")
    out.append("Within %s of the original (of %d cells): %s." % (
        pct, n, ", ".join("%s %d" % (k, within[k]) for k in within)))
    out.append("Within max(%s, the control's distance from 1): %s." % (
        pct, ", ".join("%s %d" % (k, within_aa[k]) for k in within_aa)))
    aa = [abs(float(r[k]) - 1) <= tol for r in rows for k in ("aa_w_ratio", "aa_r_ratio")]
    out.append("The control itself within %s: %d of %d." % (pct, sum(aa), len(aa)))
    if rows and "pooled_cfg_w" in rows[0]:  # fidelity.sh with the pooled columns
        keys = ("cfg_w", "otf_w", "cfg_r", "otf_r")
        pooled = {k: [float(r["pooled_" + k]) for r in rows] for k in keys}
        out.append("Pooled (each replay's median over the median of both runs of the original per round), within "
                   "%s: %s; out: %s." % (
                       pct, ", ".join("%s %d" % (k, sum(abs(x - 1) <= tol for x in pooled[k])) for k in keys),
                       ", ".join("%s %s %s %s %.3f" % (r["mode"], r["transfer"], r["ranks"], k, float(r["pooled_" + k]))
                                 for r in rows for k in keys if abs(float(r["pooled_" + k]) - 1) > tol) or "none"))
    print("\n".join(out))


if __name__ == "__main__":
    main()
