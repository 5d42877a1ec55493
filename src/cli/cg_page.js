// cg_page.js: the script of the page `tare cg page` writes (embedded in tare): a flame graph
// (icicle) of the frames, the function view and the top table, drawn from the JSON block.
// Every name reaches the page as text (textContent), never as markup.
"use strict";
(function () {
  const t0 = performance.now();
  const D = JSON.parse(document.getElementById("cg-data").textContent);
  const $ = (id) => document.getElementById(id);
  const F = D.f, E = D.e, FR = D.fr, N = FR.f.length;
  const DIFF = D.diff || null;   // --diff: F[k][5], F[k][6] are BEFORE's costs (null: new), F[k][7] gone
  const CALLS = D.calls || "calls";   // what E[k][2] counts (tare alloc's page: stacks)
  let ev = 0, zoom = 0, cur = -1, query = "", sortCol = DIFF ? 4 : 2, sortDesc = true, maxAbs = 1;
  const before = (k) => F[k][5] ? F[k][5][ev] : 0;
  const delta = (k) => F[k][2][ev] - before(k);
  // --diff: a frame's change is its own path's (its self cost less the self cost of BEFORE's
  // frame on the same path of functions, D.pb; -1: no such path, a new one)
  const pathBefore = (i) => D.pb ? Math.max(0, D.pb[ev][i]) : 0;
  const pdelta = (i) => SELF[i] - pathBefore(i);
  const status = (k) => F[k][7] ? "gone" : F[k][5] === null ? "new" : "";
  const num = (n) => Number(n).toLocaleString("en-US");
  const pct = (a, t) => t ? (100 * a / t).toFixed(2) + "%" : "NA";
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  // the tree: parent and the end of each frame's subtree (frames are in depth-first order)
  // selfEst: a frame's self is an estimate where a frame under it is (its value less theirs)
  const parent = new Int32Array(N), end = new Int32Array(N), selfEst = new Uint8Array(N);
  {
    const stack = [];
    for (let i = 0; i < N; i++) {
      const d = FR.d[i];
      stack.length = d;
      parent[i] = d ? stack[d - 1] : -1;
      stack.push(i);
    }
    for (let i = N - 1; i >= 0; i--) {
      if (!FR.x[i] && parent[i] >= 0) selfEst[parent[i]] = 1;
      if (end[i] < i + 1) end[i] = i + 1;
      if (parent[i] >= 0 && end[parent[i]] < end[i]) end[parent[i]] = end[i];
    }
  }
  // calls between functions as `tare cg callers` and `callees` show them: each row
  // [caller, callee, calls, costs, kind (0 outer, 1 recursive, 2 cycle, 3 nested), view (1 a
  // row of the callee's callers, 0 of the caller's callees)]; callsFrom: all calls of a pair
  const callersOf = F.map(() => []), calleesOf = F.map(() => []), callsFrom = new Map();
  E.forEach((e, k) => {
    if (e[5]) {
      callersOf[e[1]].push(k);
      const key = e[0] + ":" + e[1];
      callsFrom.set(key, (callsFrom.get(key) || 0) + e[2]);
    } else {
      calleesOf[e[0]].push(k);
    }
  });
  // F[k][4]: 1 its inclusive cost only a bound, 2 its outermost frames an estimate of it, 4 its
  // frames an estimate of its self cost; outerOf(k): what its outermost frames hold, event ev
  const outerOf = (k) => {
    const v = FR.v[ev];
    let sum = 0;
    for (let i = 1; i < N; i++) {
      if (FR.f[i] !== k) continue;
      let up = parent[i];
      while (up > 0 && FR.f[up] !== k) up = parent[up];
      if (up <= 0) sum += v[i];
    }
    return sum;
  };
  // why a function's frames are not its own numbers (F[k][4] & 6), with what they hold
  const estLine = (k) => {
    const tot = D.totals[ev], parts = [];
    const outer = F[k][4] & 2 ? outerOf(k) : 0;
    if (F[k][4] & 2) parts.push("its frames not under another of its frames hold " + num(outer) + " (" +
      pct(outer, tot) + "), not its inclusive cost");
    if (F[k][4] & 4) {
      let sum = 0;
      for (let i = 1; i < N; i++) if (FR.f[i] === k) sum += SELF[i];
      parts.push("its frames hold " + num(sum) + " self, not its self cost");
    }
    return "\u2248 in the flame graph " + parts.join(", and ") + ": an estimate (tare-cg(1) STACKS)";
  };
  const fname = (i) => FR.f[i] >= 0 ? F[FR.f[i]][0]
    : FR.f[i] === -1 ? "[other: " + FR.m[i] + " function" + (FR.m[i] === 1 ? "" : "s") + "]" : "all";

  let X, SELF;
  function layout() {
    const v = FR.v[ev];
    X = new Float64Array(N);
    SELF = Float64Array.from(v);
    const next = new Float64Array(N);
    for (let i = 1; i < N; i++) {
      const p = parent[i];
      X[i] = X[p] + next[p];
      next[p] += v[i];
      SELF[p] -= v[i];
    }
    maxAbs = 1;
    if (DIFF) for (let i = 1; i < N; i++) if (FR.f[i] >= 0) maxAbs = Math.max(maxAbs, Math.abs(pdelta(i)));
  }
  function hue(s) {
    let h = 0;
    for (let k = 0; k < s.length; k++) h = (h * 31 + s.charCodeAt(k)) >>> 0;
    return h;
  }
  function colour(i) {
    if (FR.f[i] < 0) return "#c8ccd3";
    if (DIFF) {   // by the change of the path's self cost: red more, blue less, grey none
      const d = pdelta(i);
      if (d === 0) return "#dfe2e7";
      return "hsl(" + (d > 0 ? 0 : 215) + ", 75%, " + (82 - 34 * Math.min(1, Math.abs(d) / maxAbs)) + "%)";
    }
    const h = hue(F[FR.f[i]][0]);
    return "hsl(" + (h % 50) + ", " + (65 + (h >> 8) % 25) + "%, " + (58 + (h >> 16) % 14) + "%)";
  }
  const matches = (i) => query !== "" && fname(i).toLowerCase().includes(query);

  function render() {
    const box = $("flame"), W = box.clientWidth, v = FR.v[ev], vz = v[zoom] || 1, x0 = X[zoom];
    const frag = document.createDocumentFragment(), rowH = 18;
    let maxd = 0, matched = 0;
    box.textContent = "";
    const add = (i, x, w) => {
      const d = FR.d[i], e = el("div", "fr");
      if (FR.f[i] === -1) e.classList.add("other");
      if (matches(i)) e.classList.add("match");
      if (i === zoom) e.classList.add("zoom");
      if (w < 8) e.classList.add("thin");   // no padding: it would draw the frame wider
      if (FR.f[i] >= 0 && F[FR.f[i]][4] & 6) e.classList.add("est");   // striped: see the note
      if (DIFF && FR.f[i] >= 0 && pdelta(i) !== 0) e.classList.add(pdelta(i) > 0 ? "up" : "down");
      e.style.left = x + "px";
      e.style.width = w + "px";
      e.style.top = d * rowH + "px";
      e.style.backgroundColor = colour(i);
      e.dataset.i = i;
      e.dataset.v = v[i];
      if (w > 24) e.textContent = fname(i);
      frag.appendChild(e);
      if (d > maxd) maxd = d;
    };
    for (let a = parent[zoom]; a >= 0; a = parent[a]) add(a, 0, W);
    for (let i = zoom; i < end[zoom]; i++) {
      const w = v[i] / vz * W;
      if (w < 0.4) { i = end[i] - 1; continue; }
      add(i, (X[i] - x0) / vz * W, w);
    }
    // the share of the view in frames that match, outermost matches only
    if (query !== "")
      for (let i = zoom; i < end[zoom]; i++)
        if (matches(i)) { matched += v[i]; i = end[i] - 1; }
    box.style.height = (maxd + 1) * rowH + "px";
    box.appendChild(frag);
    box.dataset.zoom = zoom;
    $("matched").textContent = query === "" ? "" : "matched: " + pct(matched, vz) + " of the view";
  }

  function tip(e) {
    const t = $("tip"), f = e.target.closest(".fr");
    if (!f) { t.style.display = "none"; return; }
    const i = Number(f.dataset.i), v = FR.v[ev], fi = FR.f[i], tot = D.totals[ev];
    t.textContent = "";
    t.appendChild(el("div", "", fname(i)));
    if (fi >= 0) t.appendChild(el("div", "muted", F[fi][1]));
    t.appendChild(el("div", "", "this frame: " + num(v[i]) + " " + D.events[ev] + " (" + pct(v[i], tot) +
      ")" + (FR.x[i] ? "" : " \u2248") + ", self " + num(SELF[i]) +
      (FR.x[i] && !selfEst[i] ? "" : "  \u2248 an estimate")));
    if (fi >= 0) {
      t.appendChild(el("div", "", "function: self " + num(F[fi][2][ev]) + ", inclusive " +
        (F[fi][4] & 1 ? "<=" : "") + num(F[fi][3][ev]) + " (" + pct(F[fi][3][ev], tot) + ")"));
      if (F[fi][4] & 6) t.appendChild(el("div", "est", estLine(fi)));
      if (DIFF) t.appendChild(el("div", "", "this path's self before " + (D.pb[ev][i] < 0 ? "none (a new path)" :
        num(D.pb[ev][i])) + ", after " + num(SELF[i]) + " (" + (pdelta(i) >= 0 ? "+" : "") + num(pdelta(i)) + ")"));
      if (DIFF) t.appendChild(el("div", "", "function's self before " + num(before(fi)) + ", after " + num(F[fi][2][ev]) +
        " (" + (delta(fi) >= 0 ? "+" : "") + num(delta(fi)) + ")" + (status(fi) ? " " + status(fi) : "")));
      const p = parent[i] > 0 ? FR.f[parent[i]] : -1;
      const n = p >= 0 ? callsFrom.get(p + ":" + fi) : undefined;
      if (n !== undefined) t.appendChild(el("div", "", CALLS + " from " + F[p][0] + ": " + num(n)));
    }
    t.style.display = "block";
    t.style.left = Math.min(e.clientX + 12, window.innerWidth - 490) + "px";
    t.style.top = (e.clientY + 14) + "px";
  }

  function funcLink(f) {
    const a = el("a", "", F[f][0]);
    a.href = "#func";
    a.dataset.f = f;
    a.addEventListener("click", (e) => { e.preventDefault(); showFunc(f); });
    return a;
  }
  function table(headers, rows) {
    const t = el("table"), hr = el("tr");
    headers.forEach((h) => hr.appendChild(el("th", "", h)));
    t.appendChild(el("thead")).appendChild(hr);
    const b = t.appendChild(el("tbody"));
    rows.forEach((r) => {
      const tr = b.appendChild(el("tr"));
      r.forEach((c, k) => {
        const td = tr.appendChild(el("td", k === 0 ? "name" : ""));
        if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      });
    });
    return t;
  }
  function showFunc(f) {
    cur = f;
    const s = $("func"), r = F[f];
    s.textContent = "";
    s.appendChild(el("h2", "fname", r[0]));
    s.appendChild(el("div", "muted", r[1]));
    s.appendChild(table(["event", "self", "%", "inclusive", "%"], D.events.map((n, k) =>
      [n, num(r[2][k]), pct(r[2][k], D.totals[k]), (r[4] & 1 ? "<=" : "") + num(r[3][k]), pct(r[3][k], D.totals[k])])));
    if (r[4] & 6) s.appendChild(el("div", "est", estLine(f)));
    // the outer calls in a table, by cost; the calls inside them apart, as the command line
    // prints them ("recursive calls (to itself): 3 (fib 3)")
    const byCost = (list) => list.slice().sort((a, b) => E[b][3][ev] - E[a][3][ev] || a - b);
    const rows = (list, other) => byCost(list.filter((k) => E[k][4] === 0)).map((k) =>
      [funcLink(E[k][other]), num(E[k][2]), num(E[k][3][ev]), pct(E[k][3][ev], D.totals[ev])]);
    const apart = (list, other, kind, what) => {
      const ks = byCost(list.filter((k) => E[k][4] === kind));
      if (!ks.length) return;
      const calls = ks.reduce((a, k) => a + E[k][2], 0);
      s.appendChild(el("p", "apart", what + ": " + num(calls) + " (" +
        ks.map((k) => F[E[k][other]][0] + " " + num(E[k][2])).join(", ") + ")"));
    };
    const c1 = rows(callersOf[f], 0), c2 = rows(calleesOf[f], 1);
    s.appendChild(el("h2", "", "callers (" + c1.length + ")"));
    const t1 = s.appendChild(table(["function", CALLS, D.events[ev], "%"], c1));
    t1.id = "callers";
    apart(callersOf[f], 0, 1, "recursive calls (inside the calls above)");
    apart(callersOf[f], 0, 2, "calls within a cycle of functions (inside the calls above; " +
      "the profile has no recursion marks to tell more)");
    s.appendChild(el("h2", "", "callees (" + c2.length + ")"));
    const t2 = s.appendChild(table(["function", CALLS, D.events[ev], "%"], c2));
    t2.id = "callees";
    apart(calleesOf[f], 1, 1, "recursive calls (to itself)");
    apart(calleesOf[f], 1, 3, "calls from its recursion levels (inside the calls above)");
    const b = s.appendChild(el("button", "", "show in the flame graph"));
    b.addEventListener("click", () => { $("search").value = r[0]; search(); });
    showSource(s, f);
  }

  // the function's lines with their cost, file by file, with the text where it was readable
  const SRC_ROWS = 400;
  function showSource(s, f) {
    const lines = (D.lines && D.lines[f]) || [];
    if (!lines.length) return;
    s.appendChild(el("h2", "", "source (self cost by line)"));
    const byFile = new Map();
    lines.forEach((l) => { if (!byFile.has(l[0])) byFile.set(l[0], []); byFile.get(l[0]).push(l); });
    byFile.forEach((ls, fi) => {
      const file = D.sources[fi], cost = new Map(ls.map((l) => [l[1], l[2 + ev]]));
      const h = s.appendChild(el("div", "srcfile", file.path));
      if (file.text === null) h.appendChild(el("span", "muted", file.read === null
        ? "  (not readable here: line numbers and costs only; --source-root DIR)" : "  (too long to include)"));
      const rows = [];
      if (file.text !== null) {
        const lo = Math.max(file.first, ls[0][1] - 3), hi = Math.min(file.first + file.text.length - 1, ls[ls.length - 1][1] + 3);
        for (let n = lo; n <= hi && rows.length < SRC_ROWS; n++)
          rows.push([String(n), cost.has(n) ? num(cost.get(n)) : "", cost.has(n) ? pct(cost.get(n), D.totals[ev]) : "", file.text[n - file.first]]);
      } else {
        ls.forEach((l) => rows.push([String(l[1]), num(l[2 + ev]), pct(l[2 + ev], D.totals[ev]), ""]));
      }
      // long source lines scroll in their own box, not the page sideways
      const t = s.appendChild(el("div", "srcbox")).appendChild(
        table(["line", D.events[ev], "%", "source"], rows));
      t.className = "src";
      t.querySelectorAll("tbody tr").forEach((tr, k) => { if (rows[k][1] !== "") tr.classList.add("hot"); });
    });
  }

  const TOP_ROWS = 300;
  function renderTop() {
    if (DIFF) return renderMovers();
    const q = $("topfilter").value.toLowerCase(), tot = D.totals[ev];
    const key = [(k) => F[k][0], (k) => F[k][1], (k) => F[k][2][ev], (k) => F[k][3][ev]][sortCol];
    let idx = F.map((_, k) => k).filter((k) => q === "" || F[k][0].toLowerCase().includes(q));
    idx.sort((a, b) => {
      const x = key(a), y = key(b);
      const c = x < y ? -1 : x > y ? 1 : a - b;
      return sortDesc ? -c : c;
    });
    const shown = idx.slice(0, TOP_ROWS);
    const t = table(["function", "object", "self", "%", "inclusive", "%"], shown.map((k) =>
      [funcLink(k), F[k][1], num(F[k][2][ev]), pct(F[k][2][ev], tot), (F[k][4] & 1 ? "<=" : "") + num(F[k][3][ev]),
        pct(F[k][3][ev], tot)]));
    t.querySelectorAll("th").forEach((th, c) => {
      const col = [0, 1, 2, 2, 3, 3][c];
      if (c === [0, 1, 2, 4][sortCol]) th.textContent += sortDesc ? " \u25bc" : " \u25b2";
      th.addEventListener("click", () => {
        if (col === sortCol) sortDesc = !sortDesc; else { sortCol = col; sortDesc = col >= 2; }
        renderTop();
      });
    });
    const box = $("top");
    box.textContent = "";
    box.appendChild(t);
    box.appendChild(el("div", "muted", idx.length > TOP_ROWS ? (idx.length - TOP_ROWS) +
      " more rows: filter to narrow" : idx.length + " functions"));
  }

  // --diff: the functions by the size of the change of their self cost, biggest first
  function renderMovers() {
    const q = $("topfilter").value.toLowerCase();
    const key = [(k) => F[k][0], (k) => F[k][1], before, (k) => F[k][2][ev], (k) => Math.abs(delta(k))][sortCol];
    const idx = F.map((_, k) => k).filter((k) => (q === "" || F[k][0].toLowerCase().includes(q)) &&
      (F[k][2][ev] || before(k)));
    idx.sort((a, b) => {
      const x = key(a), y = key(b);
      const c = x < y ? -1 : x > y ? 1 : a - b;
      return sortDesc ? -c : c;
    });
    const sign = (d) => (d > 0 ? "+" : "") + num(d);
    const t = table(["function", "object", "before", "after", "delta", "change", ""], idx.slice(0, TOP_ROWS).map((k) =>
      [funcLink(k), F[k][1], num(before(k)), num(F[k][2][ev]), sign(delta(k)),
        before(k) ? (delta(k) >= 0 ? "+" : "") + (100 * delta(k) / before(k)).toFixed(2) + "%" : "", status(k)]));
    t.id = "movers";
    t.querySelectorAll("tbody tr").forEach((tr, r) => {
      const d = delta(idx[r]);
      if (d) tr.children[4].className = d > 0 ? "up" : "down";
    });
    t.querySelectorAll("th").forEach((th, c) => {
      if (c > 4) return;
      if (c === sortCol) th.textContent += sortDesc ? " \u25bc" : " \u25b2";
      th.addEventListener("click", () => {
        if (c === sortCol) sortDesc = !sortDesc; else { sortCol = c; sortDesc = c >= 2; }
        renderMovers();
      });
    });
    const box = $("top");
    box.textContent = "";
    box.appendChild(t);
    box.appendChild(el("div", "muted", idx.length > TOP_ROWS ? (idx.length - TOP_ROWS) +
      " more rows: filter to narrow" : idx.length + " functions"));
  }

  function search() {
    query = $("search").value.toLowerCase();
    render();
  }

  function setEvent(k) {
    ev = k;
    document.querySelectorAll("#events button").forEach((b, j) => b.classList.toggle("on", j === k));
    $("summary").textContent = D.events[ev] + " total " + (DIFF ? "before " + num(DIFF.totals[ev]) + ", after " : "") +
      num(D.totals[ev]) + (DIFF && DIFF.totals[ev] ? " (" + (D.totals[ev] >= DIFF.totals[ev] ? "+" : "") +
      (100 * (D.totals[ev] - DIFF.totals[ev]) / DIFF.totals[ev]).toFixed(2) + "%)" : "") + " \u00b7 " + (D.sub || D.files +
      " file" + (D.files === 1 ? "" : "s") + ", " + D.parts + " part" + (D.parts === 1 ? "" : "s"));
    layout();
    render();
    renderTop();
    if (cur >= 0) showFunc(cur);
  }

  // the functions whose frames are not their own numbers (D.est: self, inclusive, and
  // whether frames were merged: then only those surely off are counted)
  function estNote() {
    if (!D.est || !(D.est[0] || D.est[1])) return "";
    const least = D.est[2] ? "at least " : "", parts = [];
    const fns = (n) => least + num(n) + " function" + (n === 1 ? "" : "s");
    if (D.est[1]) parts.push(fns(D.est[1]) + " whose outermost frames are an estimate of the inclusive cost");
    if (D.est[0]) parts.push(fns(D.est[0]) + " whose frames are an estimate of the self cost");
    return ", except for " + parts.join(" and ") + " (their frames striped, \u2248 in their tooltip " +
      "and function view: a recursion through more functions than tare can follow; tare-cg(1) STACKS)";
  }
  document.title = D.title;
  $("title").textContent = D.title;
  $("command").textContent = D.command === null ? "(no command in the profile)" : D.command;
  $("note").textContent = (D.ctx ? "The frames follow callgrind's --separate-callers=" + D.ctx +
    " contexts (each function apart for each chain of up to " + D.ctx + " callers): a frame is exact " +
    "where its context has one caller context, and below a context with several the split is an estimate " :
    "The frames are built from callgrind's call edges, which keep no whole stacks: " +
    "below a function with several callers, the split of its callees' cost among its frames is an estimate ") +
    "(\u2248 in the tooltip). A function's frames hold its self cost, those not under another " +
    "of its frames its inclusive cost" + estNote() + "; a recursion through other functions is drawn once more, " +
    "its inner frames holding every deeper level. Callees under " + D.threshold +
    "% of the total are merged into \u201cother\u201d (" + num(D.merged) + " frames); functions under it " +
    "are not in the table (" + num(D.hidden) + ")." + (D.unreached ? " " + num(D.unreached) +
    " " + D.events[0] + " are held by no entry point's calls." : "") + (DIFF ? " The frames are AFTER's, " +
    "each coloured by the change of its own path's self cost from BEFORE's frame on the same path (" + (DIFF.command || "no command") +
    "): red more, blue less, grey no change; the table lists the functions by the size of that change, " +
    "new and gone marked." : "");
  if (D.note) $("note").textContent = D.note;   // a page of other frames says what they are
  D.events.forEach((n, k) => {
    const b = $("events").appendChild(el("button", "", n));
    b.dataset.value = n;
    b.addEventListener("click", () => setEvent(k));
  });
  $("flame").addEventListener("click", (e) => {
    const f = e.target.closest(".fr");
    if (!f) return;
    const i = Number(f.dataset.i);
    zoom = i === zoom && parent[i] >= 0 ? parent[i] : i;
    render();
    if (FR.f[i] >= 0) showFunc(FR.f[i]);
  });
  $("flame").addEventListener("mousemove", tip);
  $("flame").addEventListener("mouseleave", () => { $("tip").style.display = "none"; });
  $("search").addEventListener("input", search);
  $("topfilter").addEventListener("input", renderTop);
  $("reset").addEventListener("click", () => { zoom = 0; render(); });
  window.addEventListener("resize", render);
  setEvent(0);
  document.body.setAttribute("data-script-ms", Math.round(performance.now() - t0));
  document.body.setAttribute("data-ready", "1");
})();
