// First view of the web page: loads the empty board and ?pos=44 in turn (6 loads) and prints
// the time from `goto` to the scores drawn, with the page's own Navigation Timing.
// Usage: node tests/browser/firstview.mjs target/release/fourfold   (after npm ci here)
import { chromium } from "playwright-core";
import { spawn } from "node:child_process";
const bin = process.argv[2];
const child = spawn(bin, ["serve", "--http", "127.0.0.1:0", "--tt-mb", "32", "--workers", "2"], { stdio: ["ignore", "ignore", "pipe"] });
const base = await new Promise((res) => { let e = ""; child.stderr.on("data", (d) => { e += d; const m = e.match(/http:\/\/([0-9.:]+)\//); if (m) res("http://" + m[1]); }); });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
const page = await browser.newPage();
for (let i = 0; i < 6; i++) {
  const t0 = Date.now();
  await page.goto(base + "/?pos=" + (i % 2 ? "44" : ""));
  await page.waitForSelector('#scores[data-source="book"]', { timeout: 5000 });
  const t = Date.now() - t0;
  const nav = await page.evaluate(() => JSON.stringify(performance.getEntriesByType("navigation")[0].toJSON(), ["responseEnd", "domContentLoadedEventEnd", "loadEventEnd"]));
  const res = await page.evaluate(() => performance.getEntriesByType("resource").map((r) => r.name.split("/").pop() + ":" + r.startTime.toFixed(0) + "-" + r.responseEnd.toFixed(0)).join(" "));
  console.log(i, t, "ms", nav, res);
  await page.goto("about:blank");
}
await browser.close(); child.kill();
