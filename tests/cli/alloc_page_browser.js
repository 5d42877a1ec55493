// alloc_page_browser.js PAGE SCREENSHOT FUNC: loads a `tare alloc --format html` page in
// headless Chromium (cdp.js) and prints one JSON line of what it saw: console errors and
// exceptions; the measures the switch offers; for each, once its button is clicked, the summary
// line, the flame's width and every frame drawn as [path from the root (names joined by ";"),
// value, the width the page gave it, the width drawn (no less than its padding)], and with
// --diff the frames coloured as changed and the movers table; the tooltip of the widest frame
// below the root; the function view of FUNC (its callers and callees). Saves a screenshot (the
// first measure). With --serve, the pages named on stdin, one browser for all (cdp.js main).
"use strict";

require("./cdp.js").main(visit);

async function visit({ send, errors, evaluate, open }, [page, shot, wantFunc]) {
  await open(page);
  const out = { errors };
  out.ready = await evaluate("document.body.getAttribute('data-ready')");
  out.title = await evaluate("document.title");
  out.note = await evaluate("document.getElementById('note').textContent");
  out.switch_label = await evaluate("document.querySelector('#events .lab').textContent");
  out.measures = await evaluate(
    "Array.from(document.querySelectorAll('#events button')).map(b => b.dataset.value)");
  // inside the page: each drawn frame's path, from the depths of the frames before it
  await evaluate(`window.__d = JSON.parse(document.getElementById('cg-data').textContent);
    window.__path = (i) => { const FR = __d.fr, p = []; let d = FR.d[i];
      for (let j = i; j > 0 && d > 0; j--) if (FR.d[j] === d) { p.unshift(__d.f[FR.f[j]][0]); d--; }
      return p.join(";"); };
    window.__drawn = () => Array.from(document.querySelectorAll('#flame .fr')).map(e => {
      const i = Number(e.dataset.i);
      return [__path(i), Number(e.dataset.v), parseFloat(e.style.width), e.getBoundingClientRect().width]; });
    window.__classed = (cls) => Array.from(document.querySelectorAll('#flame .fr.' + cls))
      .map(e => __path(Number(e.dataset.i))).sort(); 0`);
  out.by = {};
  for (const m of out.measures) {
    await evaluate(`document.querySelector('#events button[data-value="${m}"]').click()`);
    out.by[m] = {
      on: await evaluate("document.querySelector('#events button.on')?.dataset.value"),
      summary: await evaluate("document.getElementById('summary').textContent"),
      flame_width: await evaluate("document.getElementById('flame').clientWidth"),
      frames: await evaluate("__drawn()"),
      up: await evaluate("__classed('up')"),
      down: await evaluate("__classed('down')"),
      movers: await evaluate(`Array.from(document.querySelectorAll('#movers tbody tr'))
        .map(r => Array.from(r.children).map(c => c.textContent))`),
    };
  }
  await evaluate("document.querySelector('#events button').click()");
  // the tooltip of the widest frame below the root
  const box = await evaluate(`(() => {
    const fr = Array.from(document.querySelectorAll('#flame .fr')).filter(e => e.dataset.i !== "0")
      .sort((a, b) => b.getBoundingClientRect().width - a.getBoundingClientRect().width)[0];
    if (!fr) return null;
    const r = fr.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`);
  if (box) {
    await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: box[0], y: box[1] });
    out.tooltip = await evaluate(
      "document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''");
  }
  if (wantFunc) {
    await evaluate(`(() => { const f = document.getElementById('topfilter'); f.value = ${JSON.stringify(wantFunc)};
      f.dispatchEvent(new Event('input'));
      Array.from(document.querySelectorAll('#top tbody a')).find(a => a.textContent === ${JSON.stringify(wantFunc)})?.click(); })()`);
    out.func = await evaluate("document.querySelector('#func h2.fname')?.textContent");
    const rows = (sel) => `Array.from(document.querySelectorAll('${sel} tbody tr'))
      .map(r => Array.from(r.children).map(c => c.textContent))`;
    out.func_table = await evaluate(rows("#func table:first-of-type"));
    out.callers = await evaluate(rows("#callers"));
    out.callees = await evaluate(rows("#callees"));
    out.calls_head =
      await evaluate("document.querySelector('#callers th:nth-child(2)')?.textContent");
  }
  if (shot) {
    await evaluate("window.scrollTo(0, 0)");
    const img = await send("Page.captureScreenshot", { format: "png" });
    require("fs").writeFileSync(shot, Buffer.from(img.result.data, "base64"));
  }
  return out;
}
