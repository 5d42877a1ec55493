# bench_prepare.sh: what an empty --prepare costs per run, tare wall against hyperfine -N,
# side by side in one run. Each tool runs /bin/true RUNS times with and without
# `--prepare true` (a hook that does nothing), rounds alternating the tools; the cost of the
# hook is the difference of the two sessions' elapsed times over the runs, and of their CPU
# time (the tool's and its children's, from getrusage: far less moved by other jobs on a
# busy machine). Hooks are never timed, so the medians of true must not move: printed too.
set -eu
: "${TARE:=build/tare}"
command -v hyperfine >/dev/null || { echo \
    "bench_prepare: hyperfine is not installed (Debian package hyperfine)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=${RUNS:-300}
rounds=${ROUNDS:-5}
true_bin=$(command -v true)
echo "empty --prepare: $runs runs of $true_bin with and without --prepare $true_bin, $rounds rounds, tools alternating"
/usr/bin/python3 - "$TARE" "$true_bin" "$runs" "$rounds" "$tmp" <<'PY'
import json, resource, statistics, subprocess, sys, time
tare, true_bin, runs, rounds, tmp = (sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]),
                                     sys.argv[5])

def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

def tare_run(prep):
    argv = [tare, "wall", "--runs", str(runs), "--warmup", "0", "--format", "json"]
    argv += ["--prepare", true_bin] if prep else []
    t, c = time.perf_counter(), cpu()
    p = subprocess.run(argv + ["--", true_bin], check=True, capture_output=True, text=True)
    el, c = time.perf_counter() - t, cpu() - c
    return el, c, json.loads(p.stdout)["series"][0]["median_s"]

def hf_run(prep):
    argv = ["hyperfine", "-N", "--runs", str(runs), "--warmup", "0",
            "--export-json", f"{tmp}/h.json"]
    argv += ["--prepare", true_bin] if prep else []
    t, c = time.perf_counter(), cpu()
    subprocess.run(argv + [true_bin], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    el, c = time.perf_counter() - t, cpu() - c
    return el, c, json.load(open(f"{tmp}/h.json"))["results"][0]["median"]

rows = []
for r in range(rounds):
    t0, tc0, tm0 = tare_run(False); t1, tc1, tm1 = tare_run(True)
    h0, hc0, hm0 = hf_run(False); h1, hc1, hm1 = hf_run(True)
    row = dict(te=(t1 - t0) / runs, he=(h1 - h0) / runs, tc=(tc1 - tc0) / runs,
               hc=(hc1 - hc0) / runs, tm=tm1 / tm0, hm=hm1 / hm0)
    rows.append(row)
    print(f"  round {r + 1}: per run, the hook's elapsed time: tare {row['te'] * 1e6:.0f} us, "
          f"hyperfine {row['he'] * 1e6:.0f} us; its CPU time: tare {row['tc'] * 1e6:.0f} us, "
          f"hyperfine {row['hc'] * 1e6:.0f} us; median of true with/without: tare {row['tm']:.3f}, "
          f"hyperfine {row['hm']:.3f}")
med = lambda k: statistics.median(r[k] for r in rows)
ce = [r["tc"] / r["hc"] for r in rows]
ee = [r["te"] / r["he"] for r in rows]
print(f"  median per-run cost of the hook, CPU: tare {med('tc') * 1e6:.0f} us, hyperfine "
      f"{med('hc') * 1e6:.0f} us; ratio per round {' '.join(f'{x:.2f}' for x in ce)}; median "
      f"{statistics.median(ce):.2f}")
print(f"  median per-run cost of the hook, elapsed: tare {med('te') * 1e6:.0f} us, hyperfine "
      f"{med('he') * 1e6:.0f} us; ratio per round {' '.join(f'{x:.2f}' for x in ee)}; median "
      f"{statistics.median(ee):.2f}")
print(f"  median of true, with the hook over without: tare {med('tm'):.3f}, hyperfine {med('hm'):.3f}")
PY
