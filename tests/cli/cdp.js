// cdp.js: headless Chromium over the DevTools protocol, for the browser tests (trend_browser.js,
// cg_page_browser.js): start() launches it with a fresh profile and returns send (a protocol
// call, answered as a promise), the page's errors as they come, and finish/fail.
"use strict";
const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");
const os = require("os");

// The browser, 60 s at most; attach() a page, send(method, params, toBrowser) to it (or to the
// browser), evaluate(expr) in it, nextLoad() a promise of its next load event; errors collects
// console errors, exceptions, log errors and dialogs.
function start() {
  const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "tare-chromium-"));
  // The DevTools protocol over a pipe (fd 3: to chromium, fd 4: from it; messages end in NUL),
  // so no WebSocket client is needed.
  const proc = spawn(chromium, ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
    "--no-default-browser-check", "--remote-debugging-pipe", "--user-data-dir=" + profile,
    "--window-size=1400,1000", "about:blank"],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  const timer = setTimeout(() => fail("timed out"), 60000);

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
  let id = 0, session = null, loaded = null, pending = "";
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
  // A new page, attached (its session), its runtime, log and page events on.
  async function attach() {
    const t = await send("Target.createTarget", { url: "about:blank" }, true);
    const a = await send("Target.attachToTarget", { targetId: t.result.targetId, flatten: true },
      true);
    session = a.result.sessionId;
    await send("Runtime.enable");
    await send("Log.enable");
    await send("Page.enable");
  }
  // An expression's value in the page; its exception thrown here.
  async function evaluate(expr) {
    const r = await send("Runtime.evaluate", { expression: expr, returnByValue: true });
    if (r.result.exceptionDetails)
      throw new Error("evaluate: " + JSON.stringify(r.result.exceptionDetails));
    return r.result.result.value;
  }
  return {
    send, fail, finish, errors, attach, evaluate,
    nextLoad: () => new Promise((ok) => { loaded = ok; }),
  };
}

module.exports = { start };
