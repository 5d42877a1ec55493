# validate_export.py: checks tare's CI exports field by field with Python's own json and
# xml.etree (Debian's python3): the published shapes of bencher's BMF, github-action-benchmark's
# customSmallerIsBetter, JUnit XML; then the values against tare's --format json, recomputed
# from the raw times where it gives them. Prints one line per failed check; exit 1 if any.
import json
import statistics
import sys
import xml.etree.ElementTree as ET

bad = []


def need(cond, what):
    if not cond:
        bad.append(what)
    return cond


def num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def bmf(path):
    """bencher.dev/bmf.json: {benchmark: {measure: {value, lower_value?, upper_value?}}}."""
    d = json.load(open(path))
    need(isinstance(d, dict), "bmf: top level is an object")
    for b, ms in d.items():
        need(isinstance(b, str) and b, "bmf: a benchmark name is a non-empty string")
        need(isinstance(ms, dict) and ms, "bmf: %r: an object of measures" % b)
        for m, v in ms.items():
            need(isinstance(v, dict), "bmf: %s/%s: an object" % (b, m))
            need(set(v) <= {"value", "lower_value", "upper_value"},
                 "bmf: %s/%s: keys %s" % (b, m, sorted(v)))
            need(num(v.get("value")), "bmf: %s/%s: value is a number" % (b, m))
            if "lower_value" in v or "upper_value" in v:
                need(num(v.get("lower_value")) and num(v.get("upper_value")),
                     "bmf: %s/%s: both bounds numbers" % (b, m))
                need(v["lower_value"] <= v["value"] * (1 + 1e-9) and
                     v["value"] <= v["upper_value"] * (1 + 1e-9),
                     "bmf: %s/%s: lower <= value <= upper" % (b, m))
            need(len(m) <= 64, "bmf: %s/%s: a measure name is at most 64 characters" % (b, m))
    return d


def gab(path):
    """github-action-benchmark customSmallerIsBetter: [{name, unit, value, range?, extra?}]."""
    d = json.load(open(path))
    need(isinstance(d, list), "gab: top level is an array")
    names = set()
    for e in d:
        need(isinstance(e, dict), "gab: an entry is an object")
        need(set(e) <= {"name", "unit", "value", "range", "extra"}, "gab: keys %s" % sorted(e))
        need(isinstance(e.get("name"), str) and e["name"], "gab: name is a non-empty string")
        need(e.get("name") not in names, "gab: name %r appears once" % e.get("name"))
        names.add(e.get("name"))
        need(isinstance(e.get("unit"), str) and e["unit"],
             "gab: %s: unit is a string" % e.get("name"))
        need(num(e.get("value")), "gab: %s: value is a number" % e.get("name"))
        for k in ("range", "extra"):
            if k in e:
                need(isinstance(e[k], str), "gab: %s: %s is a string" % (e.get("name"), k))
    return {e["name"]: e for e in d if isinstance(e, dict) and "name" in e}


def junit(path):
    """JUnit XML: testsuites > testsuite > testcase (failure | skipped)?, counts that add up."""
    root = ET.parse(path).getroot()
    need(root.tag == "testsuites", "junit: root is testsuites")
    cases = {}
    for ts in root.findall("testsuite"):
        tc = ts.findall("testcase")
        fails = [c for c in tc if c.find("failure") is not None]
        skips = [c for c in tc if c.find("skipped") is not None]
        need(int(ts.get("tests")) == len(tc),
             "junit: tests=%s counts %d cases" % (ts.get("tests"), len(tc)))
        need(int(ts.get("failures")) == len(fails),
             "junit: failures=%s, %d failing" % (ts.get("failures"), len(fails)))
        need(int(ts.get("skipped")) == len(skips),
             "junit: skipped=%s, %d skipped" % (ts.get("skipped"), len(skips)))
        for c in tc:
            need(c.get("classname") and c.get("name"), "junit: a case has classname and name")
            f = c.find("failure")
            if f is not None:
                need(f.get("type") in ("regression", "measurement failed"),
                     "junit: failure type %r" % f.get("type"))
                need(f.get("message"), "junit: %s: a failure says why" % c.get("name"))
            s = c.find("skipped")
            if s is not None:
                need(s.get("message"), "junit: %s: a skip says why" % c.get("name"))
            cases[c.get("name")] = c
    need(int(root.get("tests")) == len(cases), "junit: testsuites tests=%s" % root.get("tests"))
    return cases


def outcome(c):
    f = c.find("failure")
    if f is not None:
        return f.get("type")
    return "skipped" if c.find("skipped") is not None else "pass"


def check_wall(tare_json, b, g, j):
    """wall/run series: latency = median(times) in ns, bounds median -/+ MAD; gab in seconds."""
    t = json.load(open(tare_json))
    d, e, c = bmf(b), gab(g), junit(j)
    for s in t["series"]:
        name = s.get("name") or s.get("benchmark")
        if s["status"] != "ok":
            need(name not in d, "wall: failed %s left out of BMF (never 0)" % name)
            need("%s (median_s)" % name not in e, "wall: failed %s left out of gab" % name)
            need(outcome(c["%s median_s" % name]) == "measurement failed",
                 "wall: failed %s fails in JUnit" % name)
            continue
        times = s["times"]
        med = statistics.median(times)
        mad = statistics.median([abs(x - med) for x in times])
        lat = d[name]["latency"]
        need(close(lat["value"], med * 1e9),
             "wall: %s latency %s = median %s s in ns" % (name, lat["value"], med))
        need(close(lat["lower_value"], (med - mad) * 1e9, 1e-5),
             "wall: %s lower = median - MAD" % name)
        need(close(lat["upper_value"], (med + mad) * 1e9, 1e-5),
             "wall: %s upper = median + MAD" % name)
        ge = e["%s (median_s)" % name]
        need(ge["unit"] == "s" and close(ge["value"], med), "wall: %s gab in seconds" % name)
        need(ge["range"] == "± %.9g" % mad or close(float(ge["range"][2:]), mad, 1e-5),
             "wall: %s gab range ± MAD" % name)
        need(("runs: %d" % len(times)) in ge["extra"],
             "wall: %s gab extra has the run count" % name)
        need(outcome(c["%s median_s" % name]) == "pass", "wall: %s passes in JUnit" % name)
        if s.get("ratio") is not None:
            need(close(d[name]["ratio"]["value"], s["ratio"]), "wall: %s ratio" % name)


def check_count(tare_json, b, g, j):
    t = json.load(open(tare_json))
    d, e, c = bmf(b), gab(g), junit(j)
    for s in t["series"]:
        name = s["name"]
        for m, bm in (("instructions", "instructions"), ("allocations", "allocations"),
                      ("bytes", "bytes"), ("peak_bytes", "peak-bytes")):
            v = s[m]
            if v is None:
                need(name not in d or bm not in d[name],
                     "count: NA %s/%s left out of BMF" % (name, m))
                need("%s (%s)" % (name, m) not in e, "count: NA %s/%s left out of gab" % (name, m))
                need(outcome(c["%s %s" % (name, m)]) != "pass",
                     "count: NA %s/%s not a pass" % (name, m))
                continue
            need(d[name][bm]["value"] == v,
                 "count: %s/%s BMF %s = %s" % (name, m, d[name][bm]["value"], v))
            need(e["%s (%s)" % (name, m)]["value"] == v, "count: %s/%s gab" % (name, m))
            need(outcome(c["%s %s" % (name, m)]) == "pass", "count: %s/%s passes" % (name, m))


def check_history(tare_json, j, b, g):
    """history check: each regression a failing case, each failed measurement (NA) one too,
    each not-checked metric a skipped one."""
    t = json.load(open(tare_json))
    c = junit(j)
    bmf(b)
    gab(g)
    fails = {n for n, x in c.items() if outcome(x) == "regression"}
    want = {"%s %s" % (r["benchmark"], r["metric"]) for r in t["regressions"]}
    need(fails == want,
         "history: failing cases %s = regressions %s" % (sorted(fails), sorted(want)))
    skips = {n for n, x in c.items() if outcome(x) == "skipped"}
    want = {"%s %s" % (r["benchmark"], r["metric"]) for r in t["not_checked"]}
    need(skips == want,
         "history: skipped cases %s = not checked %s" % (sorted(skips), sorted(want)))
    failed = {n for n, x in c.items() if outcome(x) == "measurement failed"}
    want = {"%s %s" % (r["benchmark"], r["metric"]) for r in t["failed"]}
    need(failed == want,
         "history: failed cases %s = failed %s" % (sorted(failed), sorted(want)))
    tested = len(c) - len(skips) - len(failed)
    need(tested == t["checked"], "history: %d tested cases = checked %d" % (tested, t["checked"]))


def check_ab(tare_json, b, g, j, fail_if_slower):
    t = json.load(open(tare_json))
    d, e, c = bmf(b), gab(g), junit(j)
    key = "%s / %s" % (t["b"]["name"], t["a"]["name"])
    r = d[key]["ratio"]
    need(close(r["value"], t["ratio"]) and close(r["lower_value"], t["ci_low"]) and
         close(r["upper_value"], t["ci_high"]),
         "ab: BMF ratio and interval = tare's")
    need(("runs: %d" % t["pairs"]) in e["%s (ratio)" % key]["extra"], "ab: gab extra has the pairs")
    want = "regression" if fail_if_slower and t["verdict"] == "slower" else "pass"
    need(outcome(c["%s ratio" % key]) == want, "ab: the ratio case is %s" % want)
    for side in ("a", "b"):
        times = t[side]["times"]
        need(close(d[t[side]["name"]]["latency"]["value"], statistics.median(times) * 1e9),
             "ab: %s latency" % side)


def main(argv):
    kind = argv[1]
    if kind == "wall":
        check_wall(*argv[2:6])
    elif kind == "count":
        check_count(*argv[2:6])
    elif kind == "history":
        check_history(*argv[2:6])
    elif kind == "ab":
        check_ab(*argv[2:6], fail_if_slower=argv[6] == "1")
    elif kind == "junit":
        junit(argv[2])
    else:
        bad.append("unknown check " + kind)
    for b in bad:
        print("not ok - " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
