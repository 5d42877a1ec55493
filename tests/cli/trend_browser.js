// trend_browser.js PAGE SCREENSHOT: loads a `tare trend` page in headless Chromium over the
// DevTools protocol (node's own WebSocket, no packages) and prints one JSON line of what it
// saw: console errors and exceptions, chart count, what the metric switch did, the time to
// interactive, and the results of the filter, window and table view. Saves a screenshot. With
// --serve, the pages named on stdin, one browser for all (cdp.js main).
"use strict";

const fs = require("fs");
const path = require("path");
require("./cdp.js").main(visit);

async function visit({ send, errors, evaluate, nextLoad }, [page, shot, wantMetric]) {
  const load = nextLoad();
  const t0 = Date.now();
  await send("Page.navigate", { url: "file://" + path.resolve(page) });
  await load;
  const out = { errors };
  out.load_ms = Date.now() - t0;
  out.ready = await evaluate("document.body.getAttribute('data-ready')");
  // Time from navigation start to the end of the page's own script (charts drawn).
  out.interactive_ms = await evaluate("Math.round(performance.now())");
  out.charts = await evaluate("document.querySelectorAll('#charts svg.chart').length");
  out.paths = await evaluate("document.querySelectorAll('#charts svg.chart path.lane').length");
  out.dots = await evaluate("document.querySelectorAll('#charts svg.chart circle.pt').length");
  out.metrics = await evaluate("Array.from(document.querySelectorAll('#metric button')).map(b => b.getAttribute('data-value'))");
  out.metric_before =
    await evaluate("document.querySelector('#charts svg.chart')?.getAttribute('data-metric')");
  // Each chart's chips ([text, class] by chart name), y tick labels, x labels and y range.
  const chips = `Object.fromEntries(Array.from(document.querySelectorAll('#charts .card')).map(c =>
      [c.querySelector('h3 .name').textContent,
       Array.from(c.querySelectorAll('h3 .chip')).map(x => [x.textContent, x.className, x.title])]))`;
  const axes = `Object.fromEntries(Array.from(document.querySelectorAll('#charts .card')).map(c => {
      const s = c.querySelector('svg.chart');
      return [c.querySelector('h3 .name').textContent, {
        y: Array.from(s.querySelectorAll('text.ytick')).map(t => t.textContent),
        x: Array.from(s.querySelectorAll('text.xtick')).map(t => t.textContent),
        range: [Number(s.getAttribute('data-ymin')), Number(s.getAttribute('data-ymax'))] }]; }))`;
  out.chips_before = await evaluate(chips);
  out.axes_before = await evaluate(axes);
  const firstPath = "document.querySelector('#charts svg.chart path.lane')?.getAttribute('d')";
  const pathBefore = await evaluate(firstPath);
  const other = wantMetric || out.metrics.find((m) => m !== out.metric_before);
  if (other) {
    await evaluate(`document.querySelector('#metric button[data-value="${other}"]').click()`);
    out.metric_after =
      await evaluate("document.querySelector('#charts svg.chart')?.getAttribute('data-metric')");
    out.metric_button_on =
      await evaluate("document.querySelector('#metric button.on').getAttribute('data-value')");
    out.path_changed = pathBefore !== await evaluate(firstPath);
    out.all_switched = await evaluate(`Array.from(document.querySelectorAll('#charts svg.chart'))
      .every(s => s.getAttribute('data-metric') === "${other}")`);
  }
  // The commit window: "all" draws more points than 50.
  const nPoints =
    "(document.querySelector('#charts svg.chart path.lane')?.getAttribute('d') || '')" +
    ".split('L').length";
  await evaluate("document.querySelector('#window button[data-value=\"50\"]').click()");
  out.points_50 = await evaluate(nPoints);
  await evaluate("document.querySelector('#window button[data-value=\"0\"]').click()");
  out.points_all = await evaluate(nPoints);
  await evaluate("document.querySelector('#window button[data-value=\"150\"]').click()");
  // The name filter.
  out.filter_shown = await evaluate(`(() => { const f = document.getElementById('filter');
      f.value = 'fib'; f.dispatchEvent(new Event('input'));
      const n = Array.from(document.querySelectorAll('#charts .card'))
        .filter(c => !c.classList.contains('hidden')).length;
      f.value = ''; f.dispatchEvent(new Event('input')); return n; })()`);
  // Every chart's name as the page shows it (as text).
  out.names = await evaluate("Array.from(document.querySelectorAll('#charts .card h3 .name')).map(e => e.textContent)");
  out.title = await evaluate("document.title");
  out.injected = await evaluate("document.querySelectorAll('script').length");
  // The table view, sorted by the latest value column twice.
  await evaluate("document.querySelector('#view button[data-value=\"table\"]').click()");
  out.table_rows = await evaluate("document.querySelectorAll('#table tbody tr').length");
  await evaluate("document.querySelectorAll('#table th')[0].click()");
  out.table_first_desc =
    await evaluate("document.querySelector('#table tbody tr td')?.textContent");
  await evaluate("document.querySelector('#view button[data-value=\"charts\"]').click()");
  // A tooltip on hovering the first chart.
  const box = await evaluate("(() => { const c = document.querySelector('#charts svg.chart'); if (!c) return [5, 5]; const r = c.getBoundingClientRect(); return [r.left + r.width * 0.7, r.top + r.height / 2]; })()");
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: box[0], y: box[1] });
  out.tooltip = await evaluate("document.getElementById('tip').style.display === 'block' ? document.getElementById('tip').textContent : ''");
  await send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 5, y: 990 });
  await evaluate("document.querySelector('#window button[data-value=\"0\"]').click()");
  out.markers_all = await evaluate("document.querySelectorAll('#charts svg.chart path.reg, #charts svg.chart path.imp').length");
  await evaluate("document.querySelector('#window button[data-value=\"150\"]').click()");
  out.alarm_cards = await evaluate("Array.from(document.querySelectorAll('#charts .card.alarm .name')).map(e => e.textContent)");
  out.markers = await evaluate("document.querySelectorAll('#charts svg.chart path.reg, #charts svg.chart path.imp').length");
  out.chips = await evaluate(chips);
  out.axes = await evaluate(axes);
  out.html_bytes = fs.statSync(page).size;
  if (shot) {
    await send("Emulation.setDeviceMetricsOverride",
      { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
    const img = await send("Page.captureScreenshot", { format: "png" });
    fs.writeFileSync(shot, Buffer.from(img.result.data, "base64"));
  }
  return out;
}
