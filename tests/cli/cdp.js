// cdp.js: headless Chromium over the DevTools protocol, for the browser tests (trend_browser.js,
// cg_page_browser.js): start() launches it with a fresh profile and returns send (a protocol
// call, answered as a promise), the page's errors as they come, and finish/fail; main(visit)
// runs a test's visit of one page, or with --serve of each page asked for on stdin, all in one
// browser (a test file starts Chromium once, not once a page).
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const os = require("os");

// The browser; attach() a page in a browser context of its own (60 s at most a page), send(method,
// params, toBrowser) to it (or to the browser), evaluate(expr) in it, nextLoad() a promise of
// its next load event, detach() it; errors collects the page's console errors, exceptions, log
// errors and dialogs.
function start() {
  const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tare-chromium-"));
  // The DevTools protocol over a pipe (fd 3: to chromium, fd 4: from it; messages end in NUL),
  // so no WebSocket client is needed.
  const proc = spawn(chromium, ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
    "--no-default-browser-check", "--remote-debugging-pipe", "--user-data-dir=" + profile,
    "--window-size=1400,1000", "about:blank"],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let timer = null;

  function fail(msg) {
    console.log(JSON.stringify({ error: msg }));
    finish(3);
  }
  function finish(code) {
    clearTimeout(timer);
    try { proc.kill("SIGKILL"); } catch (e) { /* gone */ }
    try { fs.rmSync(profile, { recursive: true, force: true }); } catch (e) { /* best effort */ }
    process.exit(code);
  }

  let stderr = "";
  proc.stderr.on("data", (d) => { stderr += d; });
  proc.on("exit", () => fail("chromium exited: " + stderr.slice(-500)));
  const toChrome = proc.stdio[3], fromChrome = proc.stdio[4];
  let id = 0, session = null, context = null, target = null, loaded = null, pending = "";
  const waiting = new Map(), errors = [];
  fromChrome.on("data", (d) => {
    pending += d.toString("utf8");
    let k;
    while ((k = pending.indexOf("\0")) >= 0) {
      const msg = JSON.parse(pending.slice(0, k));
      pending = pending.slice(k + 1);
      onMessage(msg);
    }
  });
  function onMessage(msg) {
    if (msg.id && waiting.has(msg.id)) { waiting.get(msg.id)(msg); waiting.delete(msg.id); return; }
    if (msg.sessionId !== session) return;   // (a page already detached)
    if (msg.method === "Runtime.exceptionThrown")
      errors.push("exception: " + ((msg.params.exceptionDetails.exception || {}).description ||
        msg.params.exceptionDetails.text).slice(0, 300));
    if (msg.method === "Runtime.consoleAPICalled" &&
        (msg.params.type === "error" || msg.params.type === "warning"))
      errors.push("console." + msg.params.type + ": " +
        JSON.stringify(msg.params.args).slice(0, 300));
    if (msg.method === "Log.entryAdded" && msg.params.entry.level === "error")
      errors.push("log: " + msg.params.entry.text);
    if (msg.method === "Page.javascriptDialogOpening") {
      errors.push("dialog: " + msg.params.message);
      send("Page.handleJavaScriptDialog", { accept: true });
    }
    if (msg.method === "Page.loadEventFired" && loaded) loaded();
  }
  function send(method, params = {}, toBrowser = false) {
    return new Promise((ok, ko) => {
      const i = ++id;
      waiting.set(i, (m) =>
        m.error ? ko(new Error(method + ": " + JSON.stringify(m.error))) : ok(m));
      const m = { id: i, method, params };
      if (session && !toBrowser) m.sessionId = session;
      toChrome.write(JSON.stringify(m) + "\0");
    });
  }
  // A new page in a new browser context (nothing kept from an earlier page), attached (its
  // session), its runtime, log and page events on, its errors from none.
  async function attach() {
    clearTimeout(timer);
    timer = setTimeout(() => fail("timed out"), 60000);
    errors.length = 0;
    const c = await send("Target.createBrowserContext", {}, true);
    context = c.result.browserContextId;
    const t = await send("Target.createTarget", { url: "about:blank", browserContextId: context },
      true);
    target = t.result.targetId;
    const a = await send("Target.attachToTarget", { targetId: target, flatten: true }, true);
    session = a.result.sessionId;
    await send("Runtime.enable");
    await send("Log.enable");
    await send("Page.enable");
  }
  async function detach() {
    session = null;
    await send("Target.closeTarget", { targetId: target }, true);
    await send("Target.disposeBrowserContext", { browserContextId: context }, true);
    clearTimeout(timer);
  }
  // An expression's value in the page; its exception thrown here.
  async function evaluate(expr) {
    const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true });
    if (r.result.exceptionDetails)
      throw new Error("evaluate: " + JSON.stringify(r.result.exceptionDetails));
    return r.result.result.value;
  }
  const nextLoad = () => new Promise((ok) => { loaded = ok; });
  // The page at file PAGE loaded in a 1400 x 1000 window (what the screenshots show).
  async function open(page) {
    await send("Emulation.setDeviceMetricsOverride",
      { width: 1400, height: 1000, deviceScaleFactor: 1, mobile: false });
    const load = nextLoad();
    await send("Page.navigate", { url: "file://" + path.resolve(page) });
    await load;
  }
  return { send, fail, finish, errors, attach, detach, evaluate, nextLoad, open };
}

// main(visit): the browser test's command line. "SCRIPT ARGS...": visit(cdp, ARGS) of one page,
// its JSON line printed. "SCRIPT --serve": each line of stdin names a file of ARGS (each ended by
// a NUL byte), visited in turn in the one browser, a JSON line printed for each; stdin's end
// ends it (tests/cli/lib.sh's browse).
function main(visit) {
  const cdp = start();
  const one = async (args) => {
    await cdp.attach();
    const out = await visit(cdp, args);
    console.log(JSON.stringify(out));
    await cdp.detach();
  };
  if (process.argv[2] !== "--serve") {
    one(process.argv.slice(2)).then(() => cdp.finish(0),
      (e) => cdp.fail(String(e && e.stack || e)));
    return;
  }
  let chain = Promise.resolve();
  const lines = require("readline").createInterface({ input: process.stdin });
  lines.on("line", (file) => {
    chain = chain.then(() => one(fs.readFileSync(file, "utf8").split("\0").slice(0, -1)))
      .catch((e) => cdp.fail(String(e && e.stack || e)));
  });
  lines.on("close", () => chain.then(() => cdp.finish(0)));
}

module.exports = { start, main };
