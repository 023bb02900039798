#!/usr/bin/env node
// Browser test of the arena dashboard: node run.js <base-url> <screenshot-dir>
//
// Drives Debian's Chromium (/usr/bin/chromium, or $CHROMIUM) with playwright-core against a
// running dashboard whose store holds the example tournaments (finished) and the
// "live-bridge" tournament (in progress), as built by tests/dashboard/store_fixture.py.
// Loads every page kind, steps through a replay of every game, checks what is shown,
// and saves a screenshot of each page. Prints "N passed, M failed" and exits 1 on failure.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const base = (process.argv[2] || "").replace(/\/$/, "");
const outDir = process.argv[3] || "artifacts/screenshots";
if (!base) { console.error("usage: node run.js <base-url> <screenshot-dir>"); process.exit(2); }
fs.mkdirSync(outDir, { recursive: true });

const GAMES = ["bridge", "canasta", "calypso", "rummy", "auction"];
let passed = 0, failed = 0;
const shots = [];
function check(cond, what) {
  if (cond) { passed++; console.log("ok   " + what); }
  else { failed++; console.log("FAIL " + what); }
}
async function shot(page, name) {
  const file = path.join(outDir, name + ".png");
  await page.screenshot({ path: file, fullPage: true });
  shots.push(file);
}
const count = (page, sel) => page.locator(sel).count();
const text = (page, sel) => page.locator(sel).first().innerText();

async function open(page, url) {
  const resp = await page.goto(base + url, { waitUntil: "load" });
  return resp ? resp.status() : 0;
}

async function tournamentsList(page) {
  check(await open(page, "/") === 200, "tournaments list loads");
  check(await count(page, "#tournaments tbody tr") >= 6, "tournaments list has every tournament");
  const bridgeRow = page.locator('#tournaments tr[data-id="example-bridge"]');
  check((await bridgeRow.locator('[data-field="done"]').innerText()).trim() === "8/8", "finished tournament shows 8/8");
  check((await bridgeRow.locator('[data-field="status"]').innerText()).trim() === "done", "finished tournament is done");
  const live = page.locator('#tournaments tr[data-id="live-bridge"]');
  check((await live.locator('[data-field="status"]').innerText()).trim() === "running", "live tournament is running");
  await page.waitForFunction(() => /updated/.test(document.getElementById("poll-state").textContent), null, { timeout: 8000 });
  check(true, "live progress polling updated the page");
  check(/3\/8/.test(await live.locator('[data-field="done"]').innerText()), "live tournament shows 3/8 after polling");
  await shot(page, "tournaments");
}

async function tournamentPages(page) {
  const links = {};
  for (const game of GAMES) {
    const id = "example-" + game;
    check(await open(page, "/tournaments/" + id) === 200, `tournament page ${id} loads`);
    const rows = await count(page, "#standings tbody tr");
    check(rows >= (game === "rummy" ? 1 : 2), `${id}: standings have ${rows} rows`);  // gauntlet: one row per opponent
    const head = await page.locator("#standings thead").textContent();
    if (game === "bridge") check(/IMPs/.test(head), "bridge standings are in IMPs");
    if (game === "calypso") check(/%|MP|matchpoint/i.test(head + await text(page, "main")), "calypso standings are matchpoints");
    const matches = await count(page, "#matches a.match-link");
    check(matches >= 6, `${id}: ${matches} match links`);
    check(await count(page, "#dl-jsonl") === 1, `${id}: JSON Lines download link`);
    links[game] = await page.locator("#matches a.match-link").first().getAttribute("href");
    await shot(page, "tournament-" + game);
  }
  // Downloads (fetched through the browser context).
  const jsonl = await page.request.get(base + "/tournaments/example-bridge/records.jsonl");
  const lines = (await jsonl.text()).trim().split("\n");
  check(jsonl.ok() && lines.length === 8 && JSON.parse(lines[0]).game === "bridge", "JSON Lines download has 8 bridge records");
  const pbn = await page.request.get(base + "/tournaments/example-bridge/records.pbn");
  const pbnText = await pbn.text();
  check(pbn.ok() && /\[Deal "/.test(pbnText) && /\[Contract "/.test(pbnText), "PBN download has deals and contracts");
  // The tournament in progress.
  check(await open(page, "/tournaments/live-bridge") === 200, "live tournament page loads");
  check(await count(page, "#matches .badge.leased") === 1, "live tournament lists one leased match");
  check(await count(page, "#matches .badge.pending") >= 1, "live tournament lists pending matches");
  check(/provisional/.test(await text(page, "main")), "live standings are marked provisional");
  await shot(page, "tournament-live");
  return links;
}

async function ratings(page) {
  check(await open(page, "/ratings") === 200, "ratings page loads");
  check(await count(page, "section.ruleset") === 5, "ratings for each of the 5 games");
  check(await count(page, "table.ratings tbody tr") >= 10, "ratings rows");
  check(/±/.test(await text(page, "table.ratings")), "ratings show error bars (±)");
  const imgs = await page.$$eval("img.chart", (els) => els.map((e) => e.complete && e.naturalWidth > 0));
  check(imgs.length === 10 && imgs.every(Boolean), "error-bar and history charts render (" + imgs.length + ")");
  await shot(page, "ratings");
  check(await open(page, "/ratings?game=bridge") === 200 && await count(page, "section.ruleset") === 1, "ratings filter by game");
}

async function bots(page) {
  check(await open(page, "/bots") === 200, "bots page loads");
  check(await count(page, "#bots tbody tr") >= 4, "bots listed");
  await shot(page, "bots");
  check(await open(page, "/bots/random") === 200, "bot page loads");
  check(await count(page, "#bot-summary tbody tr") >= 4, "bot results per ruleset");
  check(/timeout/.test(await text(page, "#bot-faults")), "bot page lists its faults");
  check(await count(page, "#bot-matches a.match-link") >= 10, "bot page lists its matches");
  await shot(page, "bot");
}

async function replay(page, game, href) {
  check(await open(page, href) === 200, `${game}: match page loads`);
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  const steps = Number(await page.getAttribute("#replay", "data-steps"));
  check(steps > 10, `${game}: replay has ${steps} views`);
  check(await page.getAttribute("#replay", "data-revealed") === "1", `${game}: finished match reveals the hands`);
  check(/The deal/.test(await text(page, "#action")), `${game}: replay starts at the deal`);
  const seats = await count(page, ".seat-panel");
  check(seats >= 3, `${game}: ${seats} seats at the table`);
  const handCards = await count(page, ".seat-panel [data-key=hand] .card:not(.back)");
  check(handCards >= seats * 3, `${game}: every hand is shown at the deal (${handCards} cards)`);
  await shot(page, `replay-${game}-deal`);
  for (let i = 0; i < 3; i++) await page.click("#next");
  check(await page.getAttribute("#replay", "data-step") === "3", `${game}: next steps forward`);
  check((await text(page, "#action")).length > 3, `${game}: the action is shown`);
  await page.keyboard.press("ArrowLeft");
  check(await page.getAttribute("#replay", "data-step") === "2", `${game}: arrow key steps back`);
  const mid = Math.floor(steps / 2);
  await page.locator("#slider").fill(String(mid));
  check(await page.getAttribute("#replay", "data-step") === String(mid), `${game}: slider jumps to step ${mid}`);
  if (game === "bridge") {
    await page.click("#first");
    for (let i = 0; i < 6; i++) await page.click("#next");
    check(await count(page, ".center table.auction") === 1, "bridge: the auction is shown as a bidding table");
  }
  await page.click("#last");
  check(await page.getAttribute("#replay", "data-step") === String(steps - 1), `${game}: last goes to the end`);
  const center = await text(page, ".center");
  check(center.length > 5, `${game}: the middle of the table shows public play`);
  if (game === "bridge") check(await count(page, "#dl-record-pbn") === 1, "bridge match offers PBN");
  await page.locator("#slider").fill(String(mid));
  await shot(page, `replay-${game}-middle`);
  await page.click("#last");
  await shot(page, `replay-${game}-end`);
}

async function hidden(page) {
  await open(page, "/tournaments/live-bridge");
  const running = await page.locator("#matches tr", { has: page.locator(".badge.leased") }).locator("a.match-link").getAttribute("href");
  check(await open(page, running) === 200, "running match page loads");
  check(await count(page, "#no-record") === 1, "running match says it has no record");
  check(await count(page, ".card") === 0 && await count(page, "#replay") === 0, "running match shows no cards");
  await shot(page, "match-running");
  const api = await page.request.get(base + running.replace("/matches/", "/api/matches/") + "/replay");
  check(api.status() === 404, "running match has no replay JSON");
  // A record that ended without finishing: public play only.
  await open(page, "/tournaments/live-bridge");
  const done = await page.locator("#matches tr", { has: page.locator(".badge.done") }).locator("a.match-link").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
  let found = false;
  for (const href of done) {
    await open(page, href);
    if (!/without finishing/.test(await text(page, "#match-status"))) continue;
    found = true;
    await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
    check(await page.getAttribute("#replay", "data-revealed") === "0", "unfinished record is not revealed");
    check(await count(page, ".seat-panel .card:not(.back)") === 0, "unfinished record: no seat shows a card at the deal");
    check(await count(page, ".seat-panel .card.back") > 0, "unfinished record: hands shown face down");
    await page.click("#last");
    check(await count(page, ".seat-panel [data-key=hand]") === 0, "unfinished record: no hand at the end either");
    await shot(page, "match-unfinished");
  }
  check(found, "found the unfinished record in the live tournament");
}

(async () => {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "arena-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(15000);
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  // Everything must come from the dashboard itself (no CDN).
  const foreign = [];
  page.on("request", (r) => { if (!r.url().startsWith(base) && !r.url().startsWith("data:")) foreign.push(r.url()); });
  try {
    await tournamentsList(page);
    const links = await tournamentPages(page);
    await ratings(page);
    await bots(page);
    for (const game of GAMES) await replay(page, game, links[game]);
    await hidden(page);
    const status = await open(page, "/tournaments/no-such-thing");
    check(status === 404 && /no tournament/.test(await text(page, "#error-detail")), "unknown tournament is a 404 page");
  } catch (e) {
    check(false, "unexpected error: " + (e && e.stack || e));
    try { await shot(page, "failure"); } catch (_) { /* ignore */ }
  } finally {
    const real = errors.filter((e) => !/404 \(Not Found\)/.test(e));
    check(real.length === 0, "no JavaScript errors" + (real.length ? ": " + real.join(" | ") : ""));
    check(foreign.length === 0, "no request leaves the dashboard" + (foreign.length ? ": " + foreign.join(" ") : ""));
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
  console.log("screenshots: " + shots.join(" "));
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})();
