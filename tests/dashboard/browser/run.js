#!/usr/bin/env node
// Browser test of the arena dashboard: node run.js <base-url> <screenshot-dir>
//
// Drives Debian's Chromium (/usr/bin/chromium, or $CHROMIUM) with playwright-core against a
// running dashboard whose store holds the example tournaments (finished), the
// "live-bridge" tournament (in progress), the example Swiss event, ladders (finished and
// in progress), a bridge pairs event and the example league, as built by
// tests/dashboard/store_fixture.py. Loads every page kind, steps through a replay of every
// game, checks what is shown (and that each game is shown by its players' conventions:
// bridge hands, dealer, vulnerability, dummy, tricks and travellers; canasta melds by side;
// seats named by their entrants; vulnerable seats marked; a URL per replay step), and saves a
// screenshot of each page. Prints
// "N passed, M failed" and exits 1 on failure.
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

const SUIT_ROWS = ["S", "H", "D", "C"];
const RANKS_HIGH = "AKQJT98765432";

// Bridge by bridge players' conventions, through a whole board.
async function bridgeConventions(page, href) {
  check(await open(page, href) === 200, "bridge conventions: match page loads");
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  const steps = Number(await page.getAttribute("#replay", "data-steps"));
  // The deal: each hand spades first, one suit per row, high to low, 13 cards.
  const hands = await page.$$eval(".seat-panel", (panels) => panels.map((p) => ({
    seat: p.getAttribute("data-seat"), label: p.querySelector(".seat-label").textContent,
    rows: Array.from(p.querySelectorAll("[data-key=hand] .suit-row")).map((r) => ({
      suit: r.getAttribute("data-suit"), cards: Array.from(r.querySelectorAll(".card")).map((c) => c.getAttribute("data-card")) })) })));
  check(hands.length === 4 && hands.map((x) => x.label).join("") === "NESW", "bridge: seats are N, E, S, W");
  check(hands.every((x) => x.rows.map((r) => r.suit).join("") === SUIT_ROWS.join("")), "bridge: every hand shows spades, hearts, diamonds, clubs, one suit per row");
  check(hands.every((x) => x.rows.every((r) => r.cards.every((c) => c[1] === r.suit))), "bridge: each row holds its suit only");
  check(hands.every((x) => x.rows.every((r) => r.cards.every((c, i) => i === 0 || RANKS_HIGH.indexOf(r.cards[i - 1][0]) < RANKS_HIGH.indexOf(c[0])))),
    "bridge: each suit is high to low");
  check(hands.every((x) => x.rows.reduce((n, r) => n + r.cards.length, 0) === 13), "bridge: 13 cards a hand");
  const vul = await text(page, "#vul");
  check(/^(None|N-S|E-W|Both) vul$/.test(vul), "bridge: vulnerability as bridge says it (" + vul + ")");
  const info = await text(page, "#board-info");
  const dealer = (/Dealer ([NESW])/.exec(info) || [])[1];
  const marked = await page.$$eval(".seat-panel", (ps) => ps.filter((p) => p.querySelector(".badge.dealer")).map((p) => p.querySelector(".seat-label").textContent));
  check(dealer && marked.length === 1 && marked[0] === dealer, "bridge: the dealer (" + dealer + ") is marked at the table");
  check(await count(page, "table.auction th .dealer-mark") === 1, "bridge: the dealer is marked in the bidding table");
  const vulSeats = await page.$$eval(".seat-panel.vul .seat-label", (xs) => xs.map((x) => x.textContent).join(""));
  const expectVul = { "None vul": "", "N-S vul": "NS", "E-W vul": "EW", "Both vul": "NESW" }[vul];
  check(vulSeats === expectVul, "bridge: vulnerable seats marked (" + vulSeats + ")");
  // After the auction: declarer and dummy marked, the contract by seat name.
  const views = (await (await page.request.get(base + href.replace("/matches/", "/api/matches/") + "/replay")).json()).steps;
  const i = views.findIndex((v) => v.public.declarer >= 0);
  await page.locator("#slider").fill(String(i));
  const contract = await text(page, "#contract");
  const m = /by ([NESW]) \u00b7 dummy ([NESW])/.exec(contract);
  check(!!m, "bridge: contract line names declarer and dummy (" + contract.replace(/\s+/g, " ") + ")");
  const decl = await page.$$eval(".seat-panel", (ps) => ps.filter((p) => p.querySelector(".badge.declarer")).map((p) => p.querySelector(".seat-label").textContent));
  const dummy = await page.$$eval(".seat-panel", (ps) => ps.filter((p) => p.querySelector(".badge.dummy-badge")).map((p) => p.querySelector(".seat-label").textContent));
  check(m && decl.length === 1 && decl[0] === m[1] && dummy.length === 1 && dummy[0] === m[2], "bridge: declarer and dummy marked at their seats");
  // Mid play: the last trick's leader and winner by seat name; the trick-by-trick grid.
  const mid = Math.floor((i + steps) / 2);
  const j = views.findIndex((v, k) => k >= mid && v.public.current_trick.length === 0 && v.public.tricks.length > 0);
  await page.locator("#slider").fill(String(j));
  const leader = await page.getAttribute("#last-trick .caption", "data-leader");
  const winner = await page.getAttribute("#last-trick .caption", "data-winner");
  check(/^[NESW]$/.test(leader) && /^[NESW]$/.test(winner), `bridge: last trick led by ${leader}, won by ${winner} (seat names)`);
  check(!/(led|won) by [0-3]\b/.test(await text(page, ".center")), "bridge: no seat number in the middle of the table");
  await shot(page, "replay-bridge-trick");
  const gridRows = await count(page, "#trick-grid tbody tr:not(.current)");
  const tricksDone = await page.evaluate(() => Number(document.querySelector("#trick-grid tbody tr:last-child").getAttribute("data-trick")));
  check(gridRows >= 1 && tricksDone >= gridRows, `bridge: trick-by-trick grid (${gridRows} tricks)`);
  const perRow = await page.$$eval("#trick-grid tbody tr:not(.current)", (rs) => rs.map((r) => [r.querySelectorAll("td.lead").length, r.querySelectorAll("td.win").length, r.querySelectorAll(".card").length]));
  check(perRow.every((x) => x[0] === 1 && x[1] === 1 && x[2] === 4), "bridge: each trick row shows 4 cards, the lead and the winner marked");
  // The end: the whole deal as dealt, 13 tricks, the result.
  await page.click("#last");
  const dealt = await page.$$eval(".seat-panel", (ps) => ps.map((p) => p.querySelectorAll("[data-key=dealt] .card").length));
  check(dealt.length === 4 && dealt.every((n) => n === 13), "bridge: the full deal is visible at the end (" + dealt.join(",") + ")");
  const endHands = await page.$$eval(".seat-panel", (ps) => ps.map((p) => Array.from(p.querySelectorAll("[data-key=dealt] .card")).map((c) => c.getAttribute("data-card")).join(" ")));
  check(endHands.join("|") === hands.map((x) => x.rows.map((r) => r.cards.join(" ")).filter(Boolean).join(" ")).join("|"), "bridge: the end shows the hands as dealt");
  check(await count(page, "#trick-grid tbody tr") === 13, "bridge: the grid holds all 13 tricks at the end");
  check(/by [NESW]/.test(await text(page, "#result")), "bridge: the result is shown (" + await text(page, "#result") + ")");
  await shot(page, "replay-bridge-deal-end");
}

// Vulnerable seats marked red (class "vul", "vulnerable" for screen readers) wherever a
// bridge board shows seats: the match's seat table, the table, the bidding table, the trick
// and the trick-by-trick grid; and the traveller of the board.
async function vulnerableMarks(page) {
  const want = { "None vul": "", "N-S vul": "NS", "E-W vul": "EW", "Both vul": "NESW" };
  const seen = [];
  for (const id of ["example-bridge:000000", "example-bridge:000002", "example-bridge:000004", "example-bridge:000006"]) {
    const href = "/matches/" + encodeURIComponent(id);
    await open(page, href);
    await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
    const vul = await text(page, "#vul");
    const exp = want[vul];
    seen.push(vul);
    const seatsTable = await page.$$eval("#seats tbody tr.vul td.seat-label b", (xs) => xs.map((x) => x.textContent).join(""));
    const hidden = await page.$$eval("#seats .visually-hidden", (xs) => xs.map((x) => x.textContent).join(""));
    check(seatsTable === exp && (exp === "" ? hidden === "" : /vulnerable/.test(hidden)), `${id} (${vul}): seat table marks ${seatsTable || "no seat"}`);
    const panels = await page.$$eval(".seat-panel.vul .seat-label", (xs) => xs.map((x) => x.textContent).join(""));
    const auction = await page.$$eval("table.auction th.vul", (xs) => xs.map((x) => x.firstChild.textContent).join(""));
    check(panels === exp && (auction === exp || auction === ""), `${id}: table and bidding table mark ${panels || "no seat"}`);
    const views = (await (await page.request.get(base + href.replace("/matches/", "/api/matches/") + "/replay")).json()).steps;
    const k = views.findIndex((v) => v.public.tricks && v.public.tricks.length >= 2 && v.public.current_trick.length === 0);
    await page.locator("#slider").fill(String(k));
    const grid = await page.$$eval("#trick-grid thead th.vul", (xs) => xs.map((x) => x.firstChild.textContent).join(","));
    const gridWant = { "": "", NS: "N,S,N-S", EW: "E,W,E-W", NESW: "N,E,S,W,N-S,E-W" }[exp];
    const titled = await page.$$eval("#trick-grid thead th.vul", (xs) => xs.every((x) => x.title === "vulnerable" && /vulnerable/.test(x.textContent)));
    check(grid === gridWant && titled, `${id}: trick-by-trick grid marks ${grid || "no seat"}`);
    const who = await page.$$eval("#last-trick .who.vul", (xs) => xs.map((x) => x.textContent).join(""));
    check(who === exp, `${id}: the trick on the table marks ${who || "no seat"}`);
    const color = await page.$eval(exp ? ".seat-panel.vul .seat-label" : ".seat-panel .seat-label", (x) => getComputedStyle(x).color);
    check(!exp || color === "rgb(192, 32, 26)", `${id}: vulnerable seats are red (${color})`);
    if (exp === "NS") await shot(page, "replay-bridge-vulnerable");
  }
  check(seen.join("|") === "None vul|N-S vul|E-W vul|Both vul", "the four boards' vulnerabilities: " + seen.join(", "));
  await open(page, "/tournaments/example-bridge");
  const trav = await page.$$eval("details.traveller", (ds) => ds.map((d) => [d.getAttribute("data-board"),
    Array.from(d.querySelectorAll("thead th.vul")).map((x) => x.firstChild.textContent).join(","),
    d.querySelectorAll("tbody td.vul").length, d.querySelectorAll("tbody tr").length]));
  const travWant = { 1: "", 2: "N-S", 3: "E-W", 4: "N-S,E-W" };
  check(trav.length === 4 && trav.every((t) => t[1] === travWant[t[0]] && t[2] === t[3] * (t[1] ? t[1].split(",").length : 0)),
    "travellers mark the vulnerable side: " + trav.map((t) => t[0] + ":" + (t[1] || "none")).join(" "));
}

// Every step of a replay has a URL: ?step=N and #step-N open it, stepping keeps the address on it.
async function stepUrls(page, href) {
  const stepOf = async () => Number(await page.getAttribute("#replay", "data-step"));
  const inUrl = () => new URL(page.url()).searchParams.get("step");
  await open(page, href + "?step=5");
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  check(await stepOf() === 5 && /step 5 \//.test(await text(page, "#step-label")), "replay: ?step=5 opens step 5");
  await page.click("#next");
  check(await stepOf() === 6 && inUrl() === "6", "replay: stepping keeps the address on the step (" + page.url() + ")");
  check(/[?]step=6$/.test(await page.getAttribute("#step-link", "href")), "replay: the step link names the step shown");
  await page.keyboard.press("ArrowRight");
  await page.reload({ waitUntil: "load" });
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  check(await stepOf() === 7, "replay: reloading the address shows the same step (7)");
  await open(page, href + "#step-3");
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  check(await stepOf() === 3 && inUrl() === "3", "replay: #step-3 opens step 3");
  await page.evaluate(() => { location.hash = "step-9"; });
  await page.waitForFunction(() => document.getElementById("replay").getAttribute("data-step") === "9", null, { timeout: 5000 });
  check(inUrl() === "9", "replay: a new #step-N goes to that step");
  await page.click("#first");
  check(await stepOf() === 0 && inUrl() === null, "replay: the deal's address is the match's own");
  await open(page, href + "?step=99999");
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  const steps = Number(await page.getAttribute("#replay", "data-steps"));
  check(await stepOf() === steps - 1, "replay: a step past the end opens the last");
}

// Canasta: melds under the side that made them, canastas marked natural, mixed or wild.
async function canastaMelds(page, href) {
  await open(page, href);
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  await page.click("#last");
  const sides = await page.$$eval(".side-block .side-name", (xs) => xs.map((x) => x.textContent));
  check(sides.length === 2 && sides.every((x) => /[a-z]/.test(x) && !/^\d/.test(x)), "canasta: melds grouped by side, sides named (" + sides.join(" / ") + ")");
  const melds = await page.$$eval(".side-block .meld", (ms) => ms.map((m) => ({
    key: m.getAttribute("data-key"), kind: m.getAttribute("data-canasta"),
    badge: (m.querySelector(".canasta-badge") || {}).textContent || "",
    cards: Array.from(m.querySelectorAll(".card")).map((c) => c.title) })));
  check(melds.length > 2, `canasta: ${melds.length} melds on the table`);
  const wild = (c) => c === "joker" || /^2[CDHS]$/.test(c);
  check(melds.every((x) => (x.cards.length >= 7 && x.key !== "BLACK3") === !!x.kind), "canasta: exactly the melds of 7 or more cards are marked as canastas");
  check(melds.filter((x) => x.kind).every((x) => x.kind === (x.key === "WILD" ? "wild" : x.cards.some(wild) ? "mixed" : "natural") && x.badge === x.kind + " canasta"),
    "canasta: canastas marked natural or mixed by their wild cards");
  check(melds.some((x) => x.kind), "canasta: the match shows a completed canasta");
  await shot(page, "replay-canasta-melds");
}

// Canasta, rummy, auction: seats are named by their entrants everywhere in the viewer.
async function seatNames(page, game, href) {
  await open(page, href);
  await page.waitForSelector("#replay[data-steps]", { timeout: 15000 });
  const steps = Number(await page.getAttribute("#replay", "data-steps"));
  const bad = [];
  for (const k of [1, Math.floor(steps / 3), Math.floor(2 * steps / 3), steps - 1]) {
    await page.locator("#slider").fill(String(k));
    const labels = await page.$$eval(".seat-panel .seat-label", (xs) => xs.map((x) => x.textContent));
    const seats = await page.$$eval("#replay .seat", (xs) => xs.map((x) => x.textContent));
    const logs = await page.$$eval(".item.log", (xs) => xs.map((x) => x.textContent));
    const status = await text(page, "#status");
    if (labels.some((x) => /^\d+$/.test(x))) bad.push("panel " + labels.join(","));
    if (seats.some((x) => /^\d+$/.test(x.trim()))) bad.push("seat " + seats.join(","));
    if (logs.some((x) => /^\s*\d+ /.test(x))) bad.push("log " + logs.join(" | "));
    if (/\b[0-3]\+[0-3]\b|seat \d/.test(status)) bad.push("status " + status);
  }
  const table = await page.$$eval("#seats tbody .seat-label", (xs) => xs.map((x) => x.textContent.trim()));
  if (table.some((x) => /^\d+$/.test(x))) bad.push("seat table " + table.join(","));
  check(bad.length === 0, `${game}: seats named by entrants, never 0-3` + (bad.length ? ": " + bad.join(" ; ") : ""));
}

async function travellerPages(page) {
  check(await open(page, "/tournaments/example-bridge") === 200, "bridge teams page loads");
  const boards = await page.$$eval("details.traveller", (ds) => ds.map((d) => ({
    rows: d.querySelectorAll(".traveller-table tbody tr").length,
    contracts: Array.from(d.querySelectorAll("td.contract")).map((c) => c.textContent.trim()),
    imps: Array.from(d.querySelectorAll("td.imps")).map((c) => c.textContent.trim()) })));
  check(boards.length === 4, `bridge teams: a traveller per board (${boards.length})`);
  check(boards.every((b) => b.rows === 2 && b.contracts.every((c) => /^([1-7]([\u2663\u2666\u2665\u2660]|NT)X{0,2}|Pass)$/.test(c))), "bridge teams: each traveller has both rooms' contracts");
  check(boards.every((b) => b.imps.length === 1 && /^(\S+ \+\d+|0)$/.test(b.imps[0])), "bridge teams: IMPs per table (" + boards.map((b) => b.imps[0]).join(", ") + ")");
  const heads = await text(page, ".traveller-table thead");
  check(/Contract/i.test(heads) && /By/i.test(heads) && /Lead/i.test(heads) && /N-S score/i.test(heads), "bridge teams: traveller columns");
  await shot(page, "tournament-bridge-travellers");
  check(await open(page, "/tournaments/pairs-bridge") === 200, "bridge pairs page loads");
  const mp = await page.$$eval("details.traveller", (ds) => ds.map((d) => d.querySelectorAll(".traveller-table tbody tr").length));
  check(mp.length === 2 && mp.every((n) => n === 3), "bridge pairs: every table's line on each traveller");
  check(/N-S MP/.test(await text(page, ".traveller-table thead")), "bridge pairs: matchpoints per line");
  await shot(page, "tournament-pairs");
}

async function swissPage(page) {
  check(await open(page, "/tournaments/example-swiss") === 200, "Swiss page loads");
  check(await count(page, ".swiss-round") === 3, "Swiss: every round shown");
  const rounds = await page.$$eval(".swiss-round", (rs) => rs.map((r) => ({
    pairs: r.querySelectorAll(".pairings tbody tr:not(.bye)").length, byes: r.querySelectorAll(".pairings tbody tr.bye").length,
    results: Array.from(r.querySelectorAll(".pairings td.result")).map((c) => c.textContent.trim()),
    standings: r.querySelectorAll(".standings-after tbody tr").length,
    heads: Array.from(r.querySelectorAll(".standings-after thead th")).map((c) => c.textContent.trim()) })));
  check(rounds.every((r) => r.pairs === 2 && r.byes === 1), "Swiss: pairings and the bye of each round");
  check(rounds.every((r) => r.results.every((x) => /^\d+(\.\d+)? \u2013 \d+(\.\d+)?$/.test(x))), "Swiss: results of every pairing");
  check(rounds.every((r) => r.standings === 5), "Swiss: standings after each round");
  check(rounds.every((r) => ["Buchholz", "median Buchholz", "Sonneborn-Berger", "head to head"].every((t) => r.heads.indexOf(t) >= 0)),
    "Swiss: tie-breaks shown in the standings of each round");
  await shot(page, "tournament-swiss");
}

async function ladderPages(page) {
  check(await open(page, "/tournaments/example-ladder") === 200, "ladder page loads");
  check(await count(page, "#leaderboard tbody tr") === 6, "ladder: every entrant on the leaderboard");
  check(await count(page, "#leaderboard .interval .band") === 6, "ladder: ratings with interval bars");
  check(/^\u00b1\d/.test(await text(page, "#leaderboard td.err")), "ladder: 95% intervals");
  check(await count(page, "#recent tbody tr") === 12, "ladder: recent encounters");
  check((await text(page, "#ladder-live")).trim() === "final", "ladder: a finished ladder says final");
  const before = await page.$$eval("#leaderboard tbody tr", (rs) => rs.map((r) => r.getAttribute("data-entrant")).join(","));
  await page.waitForSelector("#ladder[data-polled]", { timeout: 8000 });
  const after = await page.$$eval("#leaderboard tbody tr", (rs) => rs.map((r) => r.getAttribute("data-entrant")).join(","));
  check(before === after && await count(page, "#leaderboard .interval .band") === 6, "ladder: the live refresh redraws the same leaderboard");
  await shot(page, "tournament-ladder");
  check(await open(page, "/tournaments/live-ladder") === 200, "ladder in progress loads");
  check((await text(page, "#ladder-live")).trim() === "live", "ladder in progress is live");
  await page.waitForSelector("#ladder[data-polled]", { timeout: 8000 });
  check(await count(page, "#recent .badge.pending") >= 1 && await count(page, "#recent .badge.done") >= 1, "ladder in progress: played and scheduled encounters");
  check(/\d\d:\d\d:\d\d/.test(await text(page, "#ladder-updated")), "ladder in progress: refreshed");
  await shot(page, "tournament-ladder-live");
}

async function leaguePages(page) {
  check(await open(page, "/leagues") === 200, "leagues page loads");
  check(await count(page, "#leagues tbody tr") === 1, "leagues: the league listed");
  await shot(page, "leagues");
  await page.click("#leagues tbody a");
  await page.waitForSelector("#season-title");
  check(/Season 3/.test(await text(page, "#season-title")), "league: opens on the running season");
  check(await count(page, "#seasons a") === 3, "league: a link to every season");
  await page.click('#seasons a[data-season="1"]');
  await page.waitForSelector("#moves");
  check(await count(page, "section.division") === 2, "league: a table per division");
  check(await count(page, "#division-premier tr.zone-down") === 1 && await count(page, "#division-premier tr.zone-up") === 0, "league: the relegation zone of the top division");
  check(await count(page, "#division-championship tr.zone-up") === 1 && await count(page, "#division-championship tr.zone-down") === 0, "league: the promotion zone of the lower division");
  const down = await page.getAttribute("#division-premier tr.zone-down", "data-entrant");
  const up = await page.getAttribute("#division-championship tr.zone-up", "data-entrant");
  const moves = await text(page, "#moves");
  check(moves.indexOf(down) >= 0 && moves.indexOf(up) >= 0, `league: ${up} promoted and ${down} relegated at the season's end`);
  check(await count(page, "#all-time tbody tr") === 8, "league: the all-time table");
  check(await count(page, "#league-ratings tbody tr") === 8, "league: ratings across seasons");
  await shot(page, "league");
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
  // A page's first render computes what it shows (ratings, travellers' replays): on a loaded
  // machine that alone can take longer than the 15 s the checks wait.
  page.setDefaultNavigationTimeout(90000);
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
    await bridgeConventions(page, links.bridge);
    await vulnerableMarks(page);
    await stepUrls(page, links.bridge);
    await canastaMelds(page, links.canasta);
    for (const game of ["canasta", "rummy", "auction"]) await seatNames(page, game, links[game]);
    await travellerPages(page);
    await swissPage(page);
    await ladderPages(page);
    await leaguePages(page);
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
