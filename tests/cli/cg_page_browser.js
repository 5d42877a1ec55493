// cg_page_browser.js PAGE SCREENSHOT NAME CALLEE EVENT: loads a `tare cg page` page in headless
// Chromium over the DevTools protocol (node's own WebSocket-free pipe, no packages) and prints
// one JSON line of what it saw: console errors and exceptions, the root frame's value and
// width, the frames of function NAME (values, widths; their sums by the page's data, and the
// widths of the outermost), what a click on NAME's frame did (the zoom), the tooltip, the
// search, the function view of CALLEE (its callers and callees with their call counts, the
// calls shown apart), the top table, and the root after switching to EVENT. Saves a
// screenshot. With --serve, the pages named on stdin, one browser for all (cdp.js main).
"use strict";

const fs = require("fs");
require("./cdp.js").main(visit);

async function visit({ send, errors, evaluate, open },
  [page, shot, wantName, wantFunc, wantEvent]) {
  const click = async (x, y) => {
    await send("Input.dispatchMouseEvent",
      { type: "mousePressed", x, y, button: "left", clickCount: 1 });
    await send("Input.dispatchMouseEvent",
      { type: "mouseReleased", x, y, button: "left", clickCount: 1 });
  };
  await open(page);
  const out = { errors };
  out.ready = await evaluate("document.body.getAttribute('data-ready')");
  out.interactive_ms = await evaluate("Math.round(performance.now())");
  out.script_ms = Number(await evaluate("document.body.getAttribute('data-script-ms')"));
  out.title = await evaluate("document.title");
  out.summary = await evaluate("document.getElementById('summary').textContent");
  out.scripts = await evaluate("document.querySelectorAll('script').length");
  out.events = await evaluate(
    "Array.from(document.querySelectorAll('#events button')).map(b => b.dataset.value)");
  // helpers inside the page: the frames drawn, with the function each stands for
  await evaluate(`window.__d = JSON.parse(document.getElementById('cg-data').textContent);
    window.__frames = (name) => Array.from(document.querySelectorAll('#flame .fr')).filter(e => {
      const f = __d.fr.f[Number(e.dataset.i)]; return f >= 0 && __d.f[f][0] === name; });
    window.__root = () => { const r = document.querySelector('#flame .fr[data-i="0"]');
      return { value: Number(r.dataset.v), width: r.getBoundingClientRect().width,
               flame_width: document.getElementById('flame').clientWidth }; }; 0`);
  out.root = await evaluate("__root()");
  out.frames = await evaluate("document.querySelectorAll('#flame .fr').length");
  // the frames drawn striped (their function's frames an estimate of its own numbers), and
  // those whose stripes disagree with the page's data (the function's flags)
  out.striped = await evaluate(`(() => { let n = 0, wrong = 0;
    for (const e of document.querySelectorAll('#flame .fr')) {
      const f = __d.fr.f[Number(e.dataset.i)], est = f >= 0 && (__d.f[f][4] & 6) !== 0;
      n += e.classList.contains('est'); wrong += est !== e.classList.contains('est'); }
    return { n, wrong }; })()`);
  // how far the page is wider than the window (a sideways scroll bar), and what pokes out
  const overflow = `(() => { const d = document.documentElement;
    const wide = Array.from(document.querySelectorAll('body *')).filter(e =>
      e.getBoundingClientRect().right > d.clientWidth + 0.5).slice(0, 5)
      .map(e => e.tagName + (e.id ? '#' + e.id : '') + '.' + e.className);
    return { px: d.scrollWidth - d.clientWidth, wide }; })()`;
  out.overflow_x = await evaluate(overflow);
  // every frame drawn as wide as its share of the root's width (the root's value over the
  // flame's width): the most any is off in px, and how many are under 7 px (padding and
  // border once drew those at 7)
  out.widths = await evaluate(`(() => {
    const W = document.getElementById('flame').clientWidth, v0 = __d.fr.v[0][0];
    let off = 0, thin = 0;
    document.querySelectorAll('#flame .fr').forEach((e) => {
      const want = Number(e.dataset.v) / v0 * W, got = e.getBoundingClientRect().width;
      if (want < 7) thin++;
      off = Math.max(off, Math.abs(got - want));
    });
    return { off, thin }; })()`);
  // --diff: the functions whose frames are coloured as changed, and the movers table
  out.changed = await evaluate(`Array.from(new Set(Array.from(document.querySelectorAll('#flame .fr.up, #flame .fr.down'))
    .map(e => (e.classList.contains('up') ? '+' : '-') + __d.f[__d.fr.f[Number(e.dataset.i)]][0]))).sort()`);
  // the same, each frame by its path from main (main;right;shared;deep)
  out.changed_paths = await evaluate(
    `Array.from(document.querySelectorAll('#flame .fr.up, #flame .fr.down')).map(e => {
    const p = []; let i = Number(e.dataset.i), d = __d.fr.d[i];
    for (let j = i; j >= 0 && d > 0; j--)
      if (__d.fr.d[j] === d) { p.unshift(__d.fr.f[j] >= 0 ? __d.f[__d.fr.f[j]][0] : "?"); d--; }
    const m = p.indexOf("main");
    return (e.classList.contains('up') ? '+' : '-') + (m >= 0 ? p.slice(m) : p).join(";"); }).sort()`);
  out.movers = await evaluate(`Array.from(document.querySelectorAll('#movers tbody tr')).slice(0, 3)
    .map(r => Array.from(r.children).map(c => c.textContent))`);
  out.moved = await evaluate(`Array.from(document.querySelectorAll('#movers tbody tr')).filter(r => r.children[4].textContent !== '0')
    .map(r => r.children[0].textContent + ' ' + r.children[4].textContent + (r.children[6].textContent ? ' ' + r.children[6].textContent : ''))`);
  if (wantName) {
    const frames = `__frames(${JSON.stringify(wantName)}).map(e => ({ i: Number(e.dataset.i), value: Number(e.dataset.v),
      width: e.getBoundingClientRect().width }))`;
    out.name_frames = await evaluate(frames);
    // NAME's frames by the page's own data: their self costs added up, and the outermost ones
    // (under no frame of NAME): their values added up, and the widths drawn (frames under
    // 0.4 px are not drawn)
    out.name_sums = await evaluate(`(() => {
      const FR = __d.fr, n = FR.f.length, v = FR.v[0], name = ${JSON.stringify(wantName)};
      const is = (i) => FR.f[i] >= 0 && __d.f[FR.f[i]][0] === name;
      const stack = [], under = new Array(n).fill(false), self = Array.from(v);
      for (let i = 0; i < n; i++) {
        const d = FR.d[i], p = d > 0 ? stack[d - 1] : -1;
        if (p >= 0) { self[p] -= v[i]; under[i] = under[p] || is(p); }
        stack[d] = i;
      }
      const r = { self: 0, outer: 0, outer_frames: 0, drawn: 0, outer_width: 0,
                  flame_width: document.getElementById('flame').clientWidth, total: __d.totals[0] };
      for (let i = 0; i < n; i++) if (is(i)) {
        r.self += self[i];
        if (!under[i]) { r.outer += v[i]; r.outer_frames++; }
      }
      document.querySelectorAll('#flame .fr').forEach((e) => {
        const i = Number(e.dataset.i);
        if (is(i) && !under[i]) { r.drawn++; r.outer_width += e.getBoundingClientRect().width; }
      });
      return r; })()`);
    const f = out.name_frames.slice().sort((x, y) => y.width - x.width)[0];    // the widest
    if (f) {
      const box = await evaluate(`(() => {
        const e = document.querySelector('#flame .fr[data-i="${f.i}"]');
        e.scrollIntoView({ block: "center" }); const r = e.getBoundingClientRect();
        return [r.left + r.width / 2, r.top + r.height / 2]; })()`);
      await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: box[0], y: box[1] });
      out.tooltip = await evaluate("document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''");
      out.clicked = await evaluate(`Number(document.elementFromPoint(${box[0]}, ${box[1]})?.closest('.fr')?.dataset.i)`);
      await click(box[0], box[1]);
      out.zoom = await evaluate("Number(document.getElementById('flame').dataset.zoom)");
      out.zoomed_frame = await evaluate(`(() => {
        const e = document.querySelector('#flame .fr[data-i="${f.i}"]');
        if (!e) return null; return { width: e.getBoundingClientRect().width, flame_width: document.getElementById('flame').clientWidth }; })()`);
      out.func_after_click =
        await evaluate("document.querySelector('#func h2.fname')?.textContent");
      await evaluate("document.getElementById('reset').click()");
      out.zoom_reset = await evaluate("Number(document.getElementById('flame').dataset.zoom)");
      // search
      out.matched = await evaluate(`(() => { const s = document.getElementById('search'); s.value = ${JSON.stringify(wantName)};
        s.dispatchEvent(new Event('input')); const n = document.querySelectorAll('#flame .fr.match').length;
        const t = document.getElementById('matched').textContent; s.value = ''; s.dispatchEvent(new Event('input'));
        return [n, t]; })()`);
    }
  }
  // the top table: rows, sorting by self, the filter
  out.top_rows = await evaluate("document.querySelectorAll('#top tbody tr').length");
  out.top_first = await evaluate("document.querySelector('#top tbody tr td')?.textContent");
  await evaluate("document.querySelectorAll('#top th')[2].click()");
  out.top_first_by_self = await evaluate("document.querySelector('#top tbody tr td')?.textContent");
  if (wantFunc) {
    out.filtered = await evaluate(`(() => { const f = document.getElementById('topfilter'); f.value = ${JSON.stringify(wantFunc)};
      f.dispatchEvent(new Event('input')); return Array.from(document.querySelectorAll('#top tbody tr td:first-child')).map(e => e.textContent); })()`);
    await evaluate(`Array.from(document.querySelectorAll('#top tbody a')).find(a => a.textContent === ${JSON.stringify(wantFunc)})?.click()`);
    out.func = await evaluate("document.querySelector('#func h2.fname')?.textContent");
    out.source = await evaluate(`Array.from(document.querySelectorAll('#func .srcfile')).map(h => ({ file: h.firstChild.textContent,
      note: h.querySelector('.muted')?.textContent || '',
      rows: Array.from(h.nextElementSibling.querySelectorAll('tbody tr')).map(r => Array.from(r.children).map(c => c.textContent)) }))`);
    const rows = (id) => `Array.from(document.querySelectorAll('#${id} tbody tr')).map(r => Array.from(r.children).slice(0, 3).map(c => c.textContent))`;
    out.callers = await evaluate(rows("callers"));
    out.callees = await evaluate(rows("callees"));
    out.apart = await evaluate(
      "Array.from(document.querySelectorAll('#func p.apart')).map(p => p.textContent)");
    // a caller's link leads to that function's view
    await evaluate("document.querySelector('#callers tbody a')?.click()");
    out.func_after_link = await evaluate("document.querySelector('#func h2.fname')?.textContent");
  }
  if (wantEvent) {
    await evaluate(`document.querySelector('#events button[data-value="${wantEvent}"]').click()`);
    out.root_after_event = await evaluate("__root()");
    out.event_on = await evaluate("document.querySelector('#events button.on')?.dataset.value");
  }
  out.overflow_x_end = await evaluate(overflow);   // after the function view, the event
  out.html_bytes = fs.statSync(page).size;
  if (shot) {
    await evaluate("document.getElementById('events').querySelector('button').click()");
    const img = await send("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(shot, Buffer.from(img.result.data, "base64"));
  }
  return out;
}
