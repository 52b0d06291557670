// End-to-end test of the web page of `fourfold serve --http` in headless Chromium.
//
// Starts the server on a free loopback port, loads the page on a Test_L2_R1 position, clicks
// columns, plays best moves to the end of the game, undoes, and checks every shown score and
// its words against the HTTP API (and the first position's against the test set). Screenshots
// go to tests/browser/output/ (gitignored).
//
// Usage: node tests/browser/e2e.mjs [path/to/fourfold]   (default: target/release/fourfold)
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const bin = process.argv[2] || process.env.FOURFOLD_BIN || join(root, "target/release/fourfold");
const out = join(here, "output");
mkdirSync(out, { recursive: true });

const [moves0, score0] = readFileSync(join(root, "tests/data/Test_L2_R1"), "utf8")
  .split("\n")[0].trim().split(" ");

function startServer(board = "7x6") {
  const child = spawn(bin, ["serve", "--http", "127.0.0.1:0", "--tt-mb", "32", "--workers", "2",
                            "--request-timeout", "20", "--board", board],
                      { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((resolve, reject) => {
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
      const m = err.match(/http:\/\/([0-9.:]+)\//);
      if (m) resolve({ child, base: "http://" + m[1] });
    });
    child.on("exit", (code) => reject(new Error("server exited " + code + ": " + err)));
  });
}

async function api(base, pos) {
  const r = await fetch(base + "/api/analyze?pos=" + pos);
  assert.equal(r.status, 200);
  return r.json();
}

async function ready(page, timeout = 30000) {
  await page.waitForSelector('#status:is([data-state="ready"], [data-state="over"], [data-state="error"])',
                             { timeout });
  return page.$eval("#status", (e) => e.dataset.state);
}

async function position(page) {
  return new URL(page.url()).searchParams.get("pos");
}

/// The page's shown scores and hover words equal the API's for the position in the URL.
async function checkScores(page, base) {
  const pos = await position(page);
  const want = await api(base, pos);
  const shown = await page.$$eval(".score", (els) =>
    els.map((e) => ({ score: e.dataset.score === undefined ? null : Number(e.dataset.score),
                      text: e.textContent, title: e.title })));
  assert.equal(shown.length, want.scores.length);
  shown.forEach((s, c) => {
    assert.equal(s.score, want.scores[c], `column ${c + 1} of ${pos}`);
    if (want.scores[c] !== null) {
      assert.ok(s.title.startsWith(want.outcomes[c]), `title ${s.title} of column ${c + 1}`);
      assert.equal(Number(s.text), want.scores[c]);
    }
  });
  return want;
}

const { child, base } = await startServer();
const profile = mkdtempSync(join(tmpdir(), "fourfold-chromium-"));
let browser;
try {
  // A fresh profile directory each run (Playwright passes it as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 390, height: 780 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = browser.pages()[0] || (await browser.newPage());
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));

  // The first view: the empty board's column scores appear fast, from the opening book in
  // the engine, equal to the API's.
  const emptyApi = await api(base, "");
  assert.equal(emptyApi.source, "book");
  const t0 = Date.now();
  await page.goto(base + "/");
  await page.waitForSelector('#scores[data-source="book"]', { timeout: 2000 });
  const firstView = Date.now() - t0;
  // The page's own clock: from the start of its navigation to the scores drawn.
  const shownAt = Number(await page.$eval("body", (b) => b.dataset.shownAt));
  assert.equal(await ready(page), "ready");
  await checkScores(page, base);
  assert.ok((await page.textContent("#status")).includes("opening book"));

  // A shared position: scores shown, the best equal to the test set's.
  await page.goto(base + "/?pos=" + moves0);
  assert.equal(await ready(page), "ready");
  let a = await checkScores(page, base);
  assert.equal(Math.max(...a.scores.filter((s) => s !== null)), Number(score0));
  await page.screenshot({ path: join(out, "phone.png"), fullPage: true });

  // Click a column (the first playable one): the URL and the scores follow.
  const col = a.scores.findIndex((s) => s !== null) + 1;
  await page.click("#col-" + col);
  assert.equal(await ready(page), "ready");
  assert.equal(await position(page), moves0 + col);
  await checkScores(page, base);

  // Undo comes back to the shared position.
  await page.click("#undo");
  assert.equal(await ready(page), "ready");
  assert.equal(await position(page), moves0);
  await checkScores(page, base);

  // Hovering a score shows its words.
  await page.hover("#score-" + a.best_move);
  assert.ok((await page.textContent("#hint")).startsWith(a.outcomes[a.best_move - 1]));

  // "Play best" to the end of the game: each move is the API's best, the end is the test
  // set's outcome (the winner of the first position's score, or a draw).
  await page.setViewportSize({ width: 1000, height: 900 });
  let pos = moves0;
  for (let i = 0; i < 42; i++) {
    const want = await checkScores(page, base);
    await page.click("#best");
    const state = await ready(page);
    assert.equal(await position(page), pos + want.best_move);
    pos += want.best_move;
    if (state === "over") break;
    assert.equal(state, "ready");
  }
  const status = await page.textContent("#status");
  const s = Number(score0);
  const mover = moves0.length % 2 ? "second" : "first";
  const other = mover === "first" ? "second" : "first";
  const expect = s === 0 ? "draw" : `The ${s > 0 ? mover : other} player wins`;
  assert.ok(status.includes(expect), `end: ${status}, expected ${expect}`);
  await page.screenshot({ path: join(out, "game-over.png"), fullPage: true });

  // A bad shared position shows the API's message.
  await page.goto(base + "/?pos=448");
  assert.equal(await ready(page), "error");
  const bad = await (await fetch(base + "/api/analyze?pos=448")).json();
  assert.ok((await page.textContent("#status")).includes(bad.error.message));

  // A 10-column board: column 10 is `a` in the move string and the URL. A late position
  // (12 empty cells), so that every answer is quick.
  const late = "92464a4a79789961686417385281";
  const wide = await startServer("10x4");
  try {
    await page.goto(wide.base + "/?pos=" + late);
    assert.equal(await ready(page), "ready");
    assert.equal((await checkScores(page, wide.base)).scores.length, 10);
    await page.click("#col-10");
    assert.equal(await ready(page), "ready");
    assert.equal(await position(page), late + "a");
    await checkScores(page, wide.base);
    // Upper-case letters in a shared link read as the same columns.
    await page.goto(wide.base + "/?pos=" + late.toUpperCase());
    assert.equal(await ready(page), "ready");
    assert.equal(await position(page), late);
    await checkScores(page, wide.base);
  } finally {
    wide.child.kill();
  }
  // Two visitors: while the workers search positions past the book (one of them on this
  // page, which says it is searching), a second visitor's book position is answered at once.
  // (The shipped book answers every position of up to five stones: these have six.)
  const hogs = ["444411", "445211"].map((p) =>
    fetch(base + "/api/analyze?pos=" + p).then((r) => r.json(), () => null));
  await page.goto(base + "/?pos=444411");
  await page.waitForSelector('#status[data-state="searching"]', { timeout: 2000 });
  assert.ok((await page.textContent("#status")).includes("Searching"));
  const visitor2 = await browser.newPage();
  const t1 = Date.now();
  await visitor2.goto(base + "/?pos=44");
  await visitor2.waitForSelector('#scores[data-source="book"]', { timeout: 2000 });
  const secondView = Date.now() - t1;
  await checkScores(visitor2, base);
  await visitor2.close();

  // Past a second of search the page shows the bounds proven so far; the exact scores it
  // ends with lie within them. (A position no other request has searched: 444411 may be
  // solved by the time the workers are free.)
  await page.goto(base + "/?pos=445641");
  await page.waitForSelector("#scores .score[data-lower]", { timeout: 60000 });
  const proven = await page.$$eval(".score", (els) => els.map((e) =>
    e.dataset.lower === undefined ? null : [Number(e.dataset.lower), Number(e.dataset.upper)]));
  assert.ok((await page.textContent("#status")).includes("So far"));
  assert.equal(await ready(page, 180000), "ready");
  const exact = await checkScores(page, base);
  proven.forEach((b, c) => {
    if (b) assert.ok(b[0] <= exact.scores[c] && exact.scores[c] <= b[1],
                     `column ${c + 1}: ${exact.scores[c]} outside the bounds shown, ${b}`);
  });
  assert.ok(proven.some((b) => b), "no bounds were shown");

  // A visitor who moves on stops asking: once they leave a position being searched, the page
  // sends no more requests for it (so the server drops it within one slice).
  const asked = [];
  page.on("request", (r) => asked.push({ url: r.url(), at: Date.now() }));
  await page.goto(base + "/?pos=453612");
  await page.waitForSelector('#status[data-state="searching"]', { timeout: 5000 });
  await page.waitForSelector("#scores .score[data-lower]", { timeout: 30000 });
  await page.click("#reset");
  const left = Date.now();
  await page.waitForSelector('#scores[data-source="book"]', { timeout: 5000 });
  await page.waitForTimeout(2500);
  const after = asked.filter((r) => r.url.includes("pos=453612") && r.at > left);
  assert.deepEqual(after.map((r) => r.url), [], "requests for a position the visitor left");
  void hogs;
  assert.deepEqual(errors, [], "errors in the page");
  console.log(`browser e2e: ok (first view from the book in ${firstView} ms, ${shownAt} ms by ` +
    `the page's clock; a second visitor's ` +
    `book position in ${secondView} ms during two searches; ${pos.length - moves0.length} moves ` +
    `played; screenshots in ${out})`);
} finally {
  if (browser) await browser.close();
  child.kill();
  rmSync(profile, { recursive: true, force: true });
}
