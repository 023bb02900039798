// Replay viewer: fetches the server-computed views of a match and steps through them.
(function () {
  "use strict";
  var box = document.getElementById("replay");
  if (!box) return;
  var SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  var CARD = /^(10|[2-9TJQKA])([CDHS])$/;
  var SEAT_KEYS = ["declarer", "dummy", "dealer", "to_act", "leader", "trick_leader", "playing_hand",
    "turner", "high_bidder", "current_player", "to_play", "barred"];
  // Public per-seat lists shown in each seat's panel, and the fields shown in the middle of the table.
  var PER_SEAT = ["collections", "calypsos", "completed", "melded", "deals_won"];
  var FEATURED = {
    bridge: ["contract", "declarer", "vulnerable", "auction", "current_trick", "tricks_won", "score"],
    canasta: ["pile_top", "pile_size", "pile_frozen", "stock_size", "melds", "red_threes", "scores", "requirements"],
    calypso: ["current_trick", "trick_number", "tricks_won", "game_points", "scores", "pile_sizes"],
    rummy: ["table", "stock_size", "scores", "log"],
    auction: ["phase", "picture", "bids", "high_bid", "high_bidder", "min_bid", "paid_pile", "match_points", "log"]
  };
  var data = null, idx = 0, timer = null;
  var el = function (id) { return document.getElementById(id); };

  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function isCard(v) { return typeof v === "string" && (CARD.test(v) || v === "JK" || v === "RJ" || v === "BJ"); }
  function card(v) {
    var m = CARD.exec(v), e;
    if (!m) { e = h("span", "card joker", "\u2605" + v); e.title = "joker"; return e; }
    var rank = m[1] === "T" ? "10" : m[1];
    e = h("span", "card " + SUITS[m[2]][1], rank + SUITS[m[2]][0]);
    e.title = v;
    return e;
  }
  function seatName(s) {
    if (typeof s !== "number" || s < 0 || !data || s >= data.seat_names.length) return "-";
    return data.seat_names[s];
  }
  function call(c) {
    var m = /^([1-7])([CDHSN])T?$/.exec(c);
    if (m) {
      if (m[2] === "N") return h("span", "call", m[1] + "NT");
      var e = h("span", "call " + SUITS[m[2]][1], m[1] + SUITS[m[2]][0]);
      return e;
    }
    return h("span", "call", { P: "Pass", X: "Dbl", XX: "Rdbl" }[c] || c);
  }
  function auctionTable(calls, dealer) {
    var t = h("table", "auction"), tr = h("tr");
    for (var s = 0; s < 4; s++) tr.appendChild(h("th", null, seatName(s)));
    t.appendChild(tr);
    tr = h("tr");
    for (var k = 0; k < dealer; k++) tr.appendChild(h("td"));
    calls.forEach(function (c, i) {
      if ((dealer + i) % 4 === 0 && tr.childNodes.length) { t.appendChild(tr); tr = h("tr"); }
      var td = h("td"); td.appendChild(call(c)); tr.appendChild(td);
    });
    t.appendChild(tr);
    return t;
  }
  function trick(cards, leader) {
    var d = h("div", "trick");
    cards.forEach(function (c, i) {
      var p = h("span", "played");
      if (typeof leader === "number" && data) p.appendChild(h("span", "who", seatName((leader + i) % data.seat_names.length)));
      p.appendChild(isCard(c) ? card(c) : h("span", null, String(c)));
      d.appendChild(p);
    });
    return d;
  }
  function value(v, key, pub) {
    if (key === "auction" && Array.isArray(v) && data.game === "bridge") return auctionTable(v, pub.dealer || 0);
    if ((key === "current_trick") && Array.isArray(v)) return trick(v, pub.trick_leader !== undefined ? pub.trick_leader : pub.leader);
    if (SEAT_KEYS.indexOf(key) >= 0 && typeof v === "number") return h("span", "seat", seatName(v));
    if (isCard(v)) return card(v);
    if (v === null || v === undefined) return h("span", "muted", "-");
    if (Array.isArray(v)) {
      if (v.length === 0) return h("span", "muted", "none");
      if (v.every(isCard)) { var g = h("span", "cards"); v.forEach(function (c) { g.appendChild(card(c)); }); return g; }
      if (key === "log") {
        var lines = h("div", "group log");
        v.slice(-8).forEach(function (x) { var it = h("div", "item log"); it.appendChild(typeof x === "string" ? h("span", null, x) : value(x, "", pub)); lines.appendChild(it); });
        return lines;
      }
      if (v.every(function (x) { return typeof x !== "object" || x === null; }))
        return h("span", "mono", v.map(function (x) { return x === true ? "yes" : x === false ? "no" : String(x); }).join(" \u00b7 "));
      var list = h("div", v.every(Array.isArray) ? "group rows" : "group");
      v.forEach(function (x, i) {
        var item = h("div", "item");
        if (key === "log") item.className = "item log";
        item.appendChild(value(x, key === "log" ? "" : "", pub));
        list.appendChild(item);
      });
      return list;
    }
    if (typeof v === "object") {
      if (Array.isArray(v.cards)) {
        var t = trick(v.cards, v.leader);
        if (typeof v.winner === "number") t.appendChild(h("span", "muted small", " won by " + seatName(v.winner)));
        return t;
      }
      var o = h("span", "obj");
      Object.keys(v).forEach(function (k) {
        var x = v[k];
        if (x === false || x === null || (Array.isArray(x) && !x.length)) return;  // say what happened, not what did not
        if (k === "seat" && typeof x === "number") { o.appendChild(h("b", null, seatName(x) + " ")); return; }
        if (x === true) { o.appendChild(h("span", null, k + " ")); return; }
        o.appendChild(h("span", "k", k + " ")); o.appendChild(value(x, k, pub)); o.appendChild(document.createTextNode(" "));
      });
      return o;
    }
    if (typeof v === "boolean") return h("span", null, v ? "yes" : "no");
    return h("span", null, String(v));
  }
  function field(key, v, pub) {
    var row = h("div", "field");
    row.setAttribute("data-key", key);
    row.appendChild(h("span", "k", key.replace(/_/g, " ")));
    row.appendChild(value(v, key, pub));
    return row;
  }
  function seatPanel(s, step) {
    var pub = step.public, p = h("div", "seat-panel seat-" + s);
    p.setAttribute("data-seat", s);
    if (step.to_act === s) p.className += " to-act";
    var head = h("div", "seat-head");
    head.appendChild(h("b", null, seatName(s)));
    head.appendChild(h("span", null, " " + (data.seats[s] || "")));
    if (step.to_act === s) head.appendChild(h("span", "badge running", "to act"));
    p.appendChild(head);
    if (step.seats) {
      var priv = step.seats[s];
      Object.keys(priv).forEach(function (k) { p.appendChild(field(k, priv[k], pub)); });
    } else {
      var isDummy = data.game === "bridge" && pub.dummy === s && Array.isArray(pub.dummy_hand) && pub.dummy_hand.length > 0;
      var n = isDummy ? 0 : step.hand_counts ? step.hand_counts[s] : (pub.hand_sizes ? pub.hand_sizes[s] : null);
      var hid = h("div", "hidden-hand", n === null || n === undefined ? "hand hidden" : "");
      if (isDummy) hid.textContent = "";
      if (n !== null && n !== undefined) for (var i = 0; i < Math.min(n, 30); i++) hid.appendChild(h("span", "card back", "\u00a0"));
      p.appendChild(hid);
    }
    PER_SEAT.forEach(function (k) {
      if (Array.isArray(pub[k]) && pub[k].length === data.seat_names.length)
        p.appendChild(field(k, pub[k][s], pub));
    });
    if (data.game === "bridge" && pub.dummy === s && Array.isArray(pub.dummy_hand) && pub.dummy_hand.length && !step.seats)
      p.appendChild(field("dummy", pub.dummy_hand, pub));
    return p;
  }
  function render() {
    if (!data || !data.steps.length) return;
    var step = data.steps[idx], pub = step.public, n = data.seat_names.length;
    el("slider").value = idx;
    el("step-label").textContent = "step " + idx + " / " + (data.steps.length - 1);
    var a = el("action");
    a.textContent = "";
    if (!step.action) a.appendChild(h("b", null, "The deal"));
    else {
      a.appendChild(h("b", null, seatName(step.action.seat) + " (" + (data.seats[step.action.seat] || "") + "): "));
      var txt = step.action.text;
      a.appendChild(data.game === "bridge" && pub.phase === "auction" || (data.game === "bridge" && /^([1-7][CDHSN]|P|X|XX)$/.test(txt) && !isCard(txt)) ? call(txt) : (isCard(txt) ? card(txt) : h("span", "mono", txt)));
      if (step.action.default) a.appendChild(h("span", "badge failed", "default"));
      if (step.action.forced) a.appendChild(h("span", "badge pending", "forced"));
    }
    if (step.status) a.appendChild(h("div", "muted small", step.status));
    var table = el("table");
    table.textContent = "";
    table.className = "table " + (n === 4 ? "compass" : "ring");
    var center = h("div", "center");
    (FEATURED[data.game] || []).forEach(function (k) {
      if (!(k in pub)) return;
      if (k === "current_trick" && Array.isArray(pub.current_trick) && !pub.current_trick.length &&
          Array.isArray(pub.tricks) && pub.tricks.length) {
        var last = pub.tricks[pub.tricks.length - 1];
        center.appendChild(field("last_trick", last, pub));
        return;
      }
      center.appendChild(field(k, pub[k], pub));
    });
    for (var s = 0; s < n; s++) table.appendChild(seatPanel(s, step));
    table.appendChild(center);
    var all = el("public");
    all.textContent = "";
    Object.keys(pub).sort().forEach(function (k) { all.appendChild(field(k, pub[k], pub)); });
    box.setAttribute("data-step", idx);
    box.setAttribute("data-revealed", data.revealed ? "1" : "0");
  }
  function go(i) { if (!data) return; idx = Math.max(0, Math.min(data.steps.length - 1, i)); render(); }
  function stop() { if (timer) { clearInterval(timer); timer = null; el("play").textContent = "\u25b6 play"; } }
  el("first").onclick = function () { stop(); go(0); };
  el("prev").onclick = function () { stop(); go(idx - 1); };
  el("next").onclick = function () { stop(); go(idx + 1); };
  el("last").onclick = function () { stop(); go(data ? data.steps.length - 1 : 0); };
  el("slider").oninput = function () { stop(); go(parseInt(this.value, 10)); };
  el("play").onclick = function () {
    if (timer) { stop(); return; }
    el("play").textContent = "\u23f8 pause";
    timer = setInterval(function () { if (idx >= data.steps.length - 1) stop(); else go(idx + 1); }, 600);
  };
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.tagName === "INPUT") return;
    if (e.key === "ArrowRight") { stop(); go(idx + 1); }
    else if (e.key === "ArrowLeft") { stop(); go(idx - 1); }
    else if (e.key === "Home") { stop(); go(0); }
    else if (e.key === "End") { stop(); go(data.steps.length - 1); }
  });
  fetch(box.getAttribute("data-url"), { headers: { Accept: "application/json" } })
    .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
    .then(function (d) {
      data = d;
      el("slider").max = d.steps.length - 1;
      if (d.error) box.insertBefore(h("p", "error", "replay stopped: " + d.error), el("action"));
      box.setAttribute("data-steps", d.steps.length);
      go(0);
    })
    .catch(function (err) { el("step-label").textContent = "replay unavailable: " + err.message; });
})();
