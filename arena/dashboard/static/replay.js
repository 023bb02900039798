// Replay viewer: fetches the server-computed views of a match and steps through them.
//
// Each game is drawn the way its players read it:
//   bridge   hands as a diagram (spades first, one suit per row, high to low), dealer (D),
//            vulnerability ("N-S vul"), declarer and dummy marked, the trick in the middle of
//            the table with its leader and winner by seat, a trick-by-trick grid under the
//            table, and the whole deal as dealt once the board is over;
//   calypso  the same hand rows and tricks, each seat's personal trump suit;
//   canasta  melds under the side that made them, canastas marked natural, mixed or wild;
//   rummy, auction
//            seats named by their entrants (the server's seat_labels), logs in words.
// Bridge marks the vulnerable seats red (class "vul", titled and labelled "vulnerable") at the
// table, in the bidding table, on the trick and in the trick-by-trick grid. Each step has a
// URL (?step=N or #step-N), kept in the address bar as the viewer steps.
(function () {
  "use strict";
  var box = document.getElementById("replay");
  if (!box) return;
  var SUITS = { C: ["\u2663", "black"], D: ["\u2666", "red"], H: ["\u2665", "red"], S: ["\u2660", "black"] };
  var SUIT_ROWS = ["S", "H", "D", "C"];
  var RANKS_HIGH = "AKQJT98765432";
  var CARD = /^(10|[2-9TJQKA])([CDHS])$/;
  var COMPASS = ["N", "E", "S", "W"];
  // Public fields naming a seat. The public lists indexed by seat (data.per_seat) and the
  // renderer of the table's centre (data.renderer, a key of CENTER) come with the replay,
  // from the game's descriptor (arena/core/descriptor.py).
  var SEAT_KEYS = ["declarer", "dummy", "dealer", "to_act", "leader", "trick_leader", "playing_hand",
    "turner", "high_bidder", "current_player", "to_play", "barred", "black3_block_seat"];
  var data = null, idx = 0, timer = null;
  var el = function (id) { return document.getElementById(id); };

  // -- small helpers --------------------------------------------------------------------------
  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function add(parent) { for (var i = 1; i < arguments.length; i++) if (arguments[i]) parent.appendChild(arguments[i]); return parent; }
  function isCard(v) { return typeof v === "string" && (CARD.test(v) || v === "JK" || v === "RJ" || v === "BJ"); }
  function rankText(r) { return r === "T" ? "10" : r; }
  function card(v) {
    var m = CARD.exec(v), e;
    if (!m) { e = h("span", "card joker", "\u2605" + v); e.title = "joker"; return e; }
    e = h("span", "card " + SUITS[m[2]][1], rankText(m[1]) + SUITS[m[2]][0]);
    e.title = v;
    e.setAttribute("data-card", v);
    return e;
  }
  function cards(list) { var g = h("span", "cards"); list.forEach(function (c) { g.appendChild(isCard(c) ? card(c) : h("span", "mono", String(c))); }); return g; }
  function seatName(s) {
    if (typeof s !== "number" || s < 0 || !data) return "-";
    var labels = data.seat_labels || data.seat_names;
    return s < labels.length ? labels[s] : "-";
  }
  function sideName(i) {
    if (!data || !data.side_labels || i >= data.side_labels.length) return String(i);
    return data.side_labels[i];
  }
  function sideOf(s) {
    if (!data || !data.sides) return -1;
    for (var i = 0; i < data.sides.length; i++) if (data.sides[i].indexOf(s) >= 0) return i;
    return -1;
  }
  function seatTag(s) { var e = h("span", "seat", seatName(s)); e.setAttribute("data-seat", s); return e; }
  function badge(text, cls, title) { var b = h("span", "badge " + (cls || ""), text); if (title) b.title = title; return b; }
  function call(c) {
    var m = /^([1-7])([CDHSN])T?$/.exec(c);
    if (m) {
      if (m[2] === "N") return h("span", "call", m[1] + "NT");
      return h("span", "call " + SUITS[m[2]][1], m[1] + SUITS[m[2]][0]);
    }
    return h("span", "call", { P: "Pass", X: "Dbl", XX: "Rdbl" }[c] || c);
  }
  function contractText(c) {  // "4SX" -> 4♠X, "3NT", "Pass"
    var m = /^([1-7])(NT|N|[CDHS])(X{0,2})$/.exec(c || "");
    if (!m) return h("span", "contract", c || "");
    var e = h("span", "contract");
    if (m[2] === "NT" || m[2] === "N") e.appendChild(h("span", null, m[1] + "NT"));
    else e.appendChild(h("span", SUITS[m[2]][1] === "red" ? "red" : null, m[1] + SUITS[m[2]][0]));
    if (m[3]) e.appendChild(h("span", null, m[3]));
    return e;
  }
  function vulText(v) {
    if (!Array.isArray(v)) return "";
    return v[0] && v[1] ? "Both vul" : v[0] ? "N-S vul" : v[1] ? "E-W vul" : "None vul";
  }

  // -- hands ------------------------------------------------------------------------------------
  // A hand as a bridge player writes it: spades, hearts, diamonds, clubs, one row each, high to low.
  function suitRows(hand, key) {
    var box = h("div", "hand-rows");
    box.setAttribute("data-key", key || "hand");
    SUIT_ROWS.forEach(function (s) {
      var row = h("div", "suit-row");
      row.setAttribute("data-suit", s);
      add(row, h("span", "suit-sym " + SUITS[s][1], SUITS[s][0]));
      var ranks = hand.filter(function (c) { var m = CARD.exec(c); return m && m[2] === s; })
        .sort(function (a, b) { return RANKS_HIGH.indexOf(CARD.exec(a)[1]) - RANKS_HIGH.indexOf(CARD.exec(b)[1]); });
      if (!ranks.length) row.appendChild(h("span", "void", "\u2014"));
      ranks.forEach(function (c) {
        var r = h("span", "card rank", rankText(CARD.exec(c)[1]));
        r.title = c; r.setAttribute("data-card", c);
        row.appendChild(r);
      });
      box.appendChild(row);
    });
    var other = hand.filter(function (c) { return !CARD.test(c); });
    if (other.length) box.appendChild(cards(other));
    return box;
  }
  // Canasta: wild cards first, then ranks high to low, threes last (melds are by rank).
  function canastaSort(hand) {
    function key(c) {
      if (c === "JK") return -2;
      var m = CARD.exec(c);
      if (!m) return 99;
      if (m[1] === "2") return -1;
      if (m[1] === "3") return 50 + "CSDH".indexOf(m[2]);
      return RANKS_HIGH.indexOf(m[1]) * 4 + "CDHS".indexOf(m[2]);
    }
    return hand.slice().sort(function (a, b) { return key(a) - key(b); });
  }
  function handField(list, game, key) {
    var f = h("div", "field hand");
    f.setAttribute("data-key", key || "hand");
    if (game === "bridge" || game === "calypso") { var r = suitRows(list, key); r.removeAttribute("data-key"); f.appendChild(r); }
    else f.appendChild(cards(game === "canasta" ? canastaSort(list) : list));
    return f;
  }

  // -- generic values ---------------------------------------------------------------------------
  function value(v, key, pub) {
    if (SEAT_KEYS.indexOf(key) >= 0 && typeof v === "number") return v < 0 ? h("span", "muted", "-") : seatTag(v);
    if (isCard(v)) return card(v);
    if (v === null || v === undefined || v === "") return h("span", "muted", "-");
    if (Array.isArray(v)) {
      if (v.length === 0) return h("span", "muted", "none");
      if (v.every(isCard)) return cards(v);
      if (key === "log") {
        var lines = h("div", "group log");
        v.slice(-8).forEach(function (x) { var it = h("div", "item log"); it.appendChild(logEntry(x, pub)); lines.appendChild(it); });
        return lines;
      }
      if (v.every(function (x) { return typeof x !== "object" || x === null; }))
        return h("span", "mono", v.map(function (x) { return x === true ? "yes" : x === false ? "no" : String(x); }).join(" \u00b7 "));
      var list = h("div", v.every(Array.isArray) ? "group rows" : "group");
      v.forEach(function (x) { var item = h("div", "item"); item.appendChild(value(x, "", pub)); list.appendChild(item); });
      return list;
    }
    if (typeof v === "object") {
      if (Array.isArray(v.cards)) return trickLine(normTrick(v));
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
  // Text with card tokens in it ("PLAY [2C 3C 4C]", "meld 6:6C,6C,6H", "3 pays 4C for AS"),
  // the cards drawn as cards.
  function words(text) {
    var e = h("span", "words");
    String(text).split(/([\s,:\[\]()]+)/).forEach(function (w) {
      if (isCard(w)) e.appendChild(card(w));
      else if (w) e.appendChild(document.createTextNode(w.replace(/,/g, " ")));
    });
    return e;
  }
  function logEntry(x, pub) {
    if (typeof x === "string") return words(x);
    if (x && typeof x === "object" && typeof x.seat === "number") {  // rummy: {seat, drew, passed, played, taken}
      var e = h("span", "obj");
      add(e, h("b", null, seatName(x.seat)), document.createTextNode(" "));
      var what = [];
      if (x.drew) what.push(h("span", null, "drew"));
      if (Array.isArray(x.taken) && x.taken.length) { var t = h("span", null, "took "); t.appendChild(cards(x.taken)); what.push(t); }
      if (Array.isArray(x.played) && x.played.length) { var p = h("span", null, "played "); p.appendChild(cards(x.played)); what.push(p); }
      if (x.passed) what.push(h("span", null, "passed"));
      what.forEach(function (w, i) { if (i) e.appendChild(document.createTextNode(", ")); e.appendChild(w); });
      return e;
    }
    return value(x, "", pub);
  }
  function field(key, v, pub, label) {
    var row = h("div", "field");
    row.setAttribute("data-key", key);
    row.appendChild(h("span", "k", label || key.replace(/_/g, " ")));
    row.appendChild(v instanceof Node ? v : value(v, key, pub));
    return row;
  }
  // A per-seat or per-side list as a small labelled table.
  function labelled(values, names, key, pub) {
    var t = h("table", "labelled");
    var head = h("tr"), body = h("tr");
    values.forEach(function (v, i) {
      head.appendChild(h("th", null, names(i)));
      var td = h("td");
      td.appendChild(typeof v === "number" ? h("span", "num", String(v)) : value(v, key, pub));
      body.appendChild(td);
    });
    add(t, head, body);
    return t;
  }

  // -- tricks -----------------------------------------------------------------------------------
  // Bridge writes a trick as [leader, cards, winner], calypso as {leader, cards, winner}.
  function normTrick(t) {
    if (Array.isArray(t)) return { leader: t[0], cards: t[1], winner: t[2] };
    return { leader: t.leader, cards: t.cards || [], winner: t.winner };
  }
  function trickLine(t) {
    var d = h("div", "trick");
    t.cards.forEach(function (c, i) {
      var p = h("span", "played");
      if (typeof t.leader === "number") p.appendChild(h("span", "who", seatName((t.leader + i) % 4)));
      p.appendChild(isCard(c) ? card(c) : h("span", null, String(c)));
      d.appendChild(p);
    });
    if (typeof t.winner === "number") d.appendChild(h("span", "small", " won by " + seatName(t.winner)));
    return d;
  }
  // The trick on the table: each card in front of the seat that played it.
  function trickTable(t, caption, id, vul) {
    var wrap = h("div", "trick-box");
    if (id) wrap.id = id;
    var g = h("div", "trick-table");
    var bySeat = {};
    t.cards.forEach(function (c, i) { bySeat[(t.leader + i) % 4] = { card: c, order: i }; });
    for (var s = 0; s < 4; s++) {
      var slot = h("div", "slot slot-" + s);
      slot.setAttribute("data-seat", s);
      if (bySeat[s]) {
        var c = card(bySeat[s].card);
        if (bySeat[s].order === 0) { c.className += " lead"; c.title += " (led)"; }
        if (t.winner === s) { c.className += " win"; c.title += " (won)"; }
        slot.appendChild(c);
      }
      var who = h("span", "who", COMPASS[s]);
      if (Array.isArray(vul) && vul[s % 2]) { who.className += " vul"; who.title = "vulnerable"; }
      slot.appendChild(who);
      g.appendChild(slot);
    }
    wrap.appendChild(g);
    if (caption) wrap.appendChild(caption);
    return wrap;
  }
  function lastTrickCaption(t) {
    var p = h("div", "caption");
    p.setAttribute("data-leader", seatName(t.leader));
    p.setAttribute("data-winner", seatName(t.winner));
    add(p, h("b", null, "Last trick"), document.createTextNode(": led by "), seatTag(t.leader),
      document.createTextNode(", won by "), seatTag(t.winner));
    return p;
  }
  function trickArea(pub, leaderKey) {
    var cur = Array.isArray(pub.current_trick) ? pub.current_trick : [];
    var leader = pub[leaderKey];
    if (cur.length && typeof leader === "number" && leader >= 0) {
      var cap = h("div", "caption");
      add(cap, h("b", null, "Trick " + ((pub.tricks || []).length + 1)), document.createTextNode(": led by "), seatTag(leader));
      return trickTable({ leader: leader, cards: cur, winner: null }, cap, "current-trick", pub.vulnerable);
    }
    if (Array.isArray(pub.tricks) && pub.tricks.length) {
      var last = normTrick(pub.tricks[pub.tricks.length - 1]);
      return trickTable(last, lastTrickCaption(last), "last-trick", pub.vulnerable);
    }
    return null;
  }
  // Bridge: every trick of the board, one row each, the lead and the winning card marked.
  function trickGrid(pub) {
    var tricks = (pub.tricks || []).map(normTrick);
    var cur = Array.isArray(pub.current_trick) && pub.current_trick.length && pub.trick_leader >= 0
      ? { leader: pub.trick_leader, cards: pub.current_trick, winner: null } : null;
    if (!tricks.length && !cur) return null;
    var declSide = typeof pub.declarer === "number" && pub.declarer >= 0 ? pub.declarer % 2 : -1;
    var t = h("table", "grid compact trick-grid");
    t.id = "trick-grid";
    var hr = h("tr");
    var vul = Array.isArray(pub.vulnerable) ? pub.vulnerable : [false, false];
    ["Trick", "Lead"].concat(COMPASS).concat(["Won by", "N-S", "E-W"]).forEach(function (x) {
      var s = COMPASS.indexOf(x), side = x === "N-S" ? 0 : x === "E-W" ? 1 : s >= 0 ? s % 2 : -1;
      var th = h("th", (side >= 0 ? "num" : "") + (side >= 0 && vul[side] ? " vul" : ""), x);
      if (side >= 0 && vul[side]) { th.title = "vulnerable"; th.appendChild(h("span", "visually-hidden", " (vulnerable)")); }
      hr.appendChild(th);
    });
    add(t, add(h("thead"), hr));
    var body = h("tbody"), ns = 0, ew = 0;
    tricks.concat(cur ? [cur] : []).forEach(function (tr, i) {
      var row = h("tr", tr.winner === null ? "current" : "");
      row.setAttribute("data-trick", i + 1);
      add(row, h("td", "num", String(i + 1)), add(h("td"), seatTag(tr.leader)));
      for (var s = 0; s < 4; s++) {
        var k = (s - tr.leader + 4) % 4, td = h("td", "num");
        td.setAttribute("data-seat", s);
        if (k < tr.cards.length) {
          td.appendChild(card(tr.cards[k]));
          if (k === 0) td.className += " lead";
          if (tr.winner === s) td.className += " win";
        }
        row.appendChild(td);
      }
      if (typeof tr.winner === "number") { if (tr.winner % 2 === 0) ns++; else ew++; }
      add(row, add(h("td"), typeof tr.winner === "number" ? seatTag(tr.winner) : h("span", "muted", "\u2026")),
        h("td", "num" + (declSide === 0 ? " decl" : ""), String(ns)), h("td", "num" + (declSide === 1 ? " decl" : ""), String(ew)));
      body.appendChild(row);
    });
    t.appendChild(body);
    var wrap = h("div", "trick-grid-box");
    add(wrap, h("h3", null, "Trick by trick"), t,
      h("p", "muted small", "\u25b8 marks the card led, bold the card that won the trick; the running tricks of the declaring side are shaded."));
    return wrap;
  }
  function auctionTable(calls, dealer, vul) {
    var t = h("table", "auction"), tr = h("tr");
    for (var s = 0; s < 4; s++) {
      var th = h("th", Array.isArray(vul) && vul[s % 2] ? "vul" : null, COMPASS[s]);
      if (s === dealer) { th.appendChild(h("sup", "dealer-mark", "D")); th.title = "dealer"; }
      if (Array.isArray(vul) && vul[s % 2]) th.title = (th.title ? th.title + ", " : "") + "vulnerable";
      tr.appendChild(th);
    }
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

  // -- per-game middles of the table --------------------------------------------------------------
  function bridgeCenter(step, pub) {
    var c = [];
    var info = h("div", "board-info");
    info.id = "board-info";
    add(info, h("b", null, pub.scoring === "rubber" ? "Deal " + pub.deal : "Board " + pub.board),
      document.createTextNode(" \u00b7 Dealer "), seatTag(pub.dealer),
      document.createTextNode(" \u00b7 "));
    var vul = h("span", "vul-text", vulText(pub.vulnerable));
    vul.id = "vul";
    info.appendChild(vul);
    c.push(info);
    if (pub.contract && pub.contract !== "Pass") {
      var ct = h("div", "contract-line");
      ct.id = "contract";
      add(ct, h("span", "k", "contract"), contractText(pub.contract), document.createTextNode(" by "), seatTag(pub.declarer));
      if (pub.dummy >= 0) add(ct, document.createTextNode(" \u00b7 dummy "), seatTag(pub.dummy));
      if (pub.phase !== "auction") ct.appendChild(h("span", "small", " \u00b7 needs " + (6 + parseInt(pub.contract, 10)) + " tricks"));
      c.push(ct);
    } else if (pub.contract === "Pass") c.push(field("contract", h("span", null, "passed out"), pub));
    if (Array.isArray(pub.auction) && (pub.auction.length || pub.phase === "auction"))
      c.push(field("auction", auctionTable(pub.auction, pub.dealer || 0, pub.vulnerable), pub));
    var trick = trickArea(pub, "trick_leader");
    if (trick) c.push(trick);
    if (Array.isArray(pub.tricks_won) && (pub.phase !== "auction"))
      c.push(field("tricks_won", labelled(pub.tricks_won, sideName, "tricks_won", pub), pub, "tricks"));
    if (pub.scoring === "rubber" && Array.isArray(pub.score)) c.push(field("score", labelled(pub.score, sideName, "score", pub), pub));
    if (pub.phase === "over" && step.status) { var res = h("div", "result-line", step.status); res.id = "result"; c.push(res); }
    return c;
  }
  function calypsoCenter(step, pub) {
    var c = [];
    c.push(field("deal", h("span", null, "game " + (pub.game_number + 1) + ", deal " + (pub.deal_number + 1) + " of 4"), pub));
    var trick = trickArea(pub, "leader");
    if (trick) c.push(trick);
    ["tricks_won", "game_points", "scores", "pile_sizes"].forEach(function (k) {
      if (Array.isArray(pub[k])) c.push(field(k, labelled(pub[k], sideName, k, pub), pub));
    });
    return c;
  }
  function meldKey(key) {
    return key === "WILD" ? "wild cards" : key === "BLACK3" ? "black threes" : rankText(key) + "s";
  }
  function canastaKind(key, list) {
    if (key === "BLACK3" || list.length < 7) return null;
    if (key === "WILD") return "wild";
    var wild = list.some(function (c) { return c === "JK" || /^2[CDHS]$/.test(c); });
    return wild ? "mixed" : "natural";
  }
  function canastaCenter(step, pub) {
    var c = [];
    var pile = h("div", "pile-line");
    pile.id = "pile";
    add(pile, h("span", "k", "discard pile"), pub.pile_top ? card(pub.pile_top) : h("span", "muted", "empty"),
      h("span", "small", " " + pub.pile_size + " card" + (pub.pile_size === 1 ? "" : "s")),
      pub.pile_frozen ? badge("frozen", "failed", "taking it needs two natural cards of the top rank") : null,
      h("span", "k", " stock"), h("span", null, String(pub.stock_size)));
    c.push(pile);
    var sides = h("div", "sides");
    (pub.melds || []).forEach(function (melds, i) {
      var sb = h("div", "side-block");
      sb.setAttribute("data-side", i);
      var head = h("div", "side-head");
      add(head, h("b", "side-name", sideName(i)));
      if (data.sides && data.sides[i] && data.sides[i].length > 1)
        head.appendChild(h("span", "muted small", " (" + data.sides[i].map(seatName).join(", ") + ")"));
      if (Array.isArray(pub.scores)) head.appendChild(h("span", "side-score", " " + pub.scores[i]));
      if (Array.isArray(pub.opened)) head.appendChild(pub.opened[i] ? badge("opened", "done") :
        badge("needs " + (pub.requirements && pub.requirements[i] < 0 ? "a canasta" : (pub.requirements ? pub.requirements[i] : "?")) + " to open", "pending"));
      sb.appendChild(head);
      if (pub.red_threes && pub.red_threes[i] && pub.red_threes[i].length)
        sb.appendChild(field("red_threes", cards(pub.red_threes[i]), pub, "red threes"));
      var ml = h("div", "melds");
      if (!melds.length) ml.appendChild(h("span", "muted small", "no melds"));
      var canastas = 0;
      melds.forEach(function (m) {
        var key = m[0], list = m[1], kind = canastaKind(key, list);
        var d = h("div", "meld" + (kind ? " canasta " + kind : ""));
        d.setAttribute("data-key", key);
        add(d, h("span", "meld-key", meldKey(key)), cards(list));
        if (kind) { canastas++; d.setAttribute("data-canasta", kind); d.appendChild(badge(kind + " canasta", "canasta-badge " + kind)); }
        ml.appendChild(d);
      });
      sb.appendChild(ml);
      if (canastas) head.appendChild(h("span", "small", " \u00b7 " + canastas + " canasta" + (canastas > 1 ? "s" : "")));
      sides.appendChild(sb);
    });
    c.push(sides);
    if (Array.isArray(pub.hand_scores) && pub.hand_scores.length) {
      var t = h("table", "labelled");
      var hr = h("tr");
      hr.appendChild(h("th", null, "hand"));
      (pub.hand_scores[0] || []).forEach(function (_, i) { hr.appendChild(h("th", null, sideName(i))); });
      t.appendChild(hr);
      pub.hand_scores.forEach(function (row, k) {
        var tr = h("tr");
        tr.appendChild(h("td", null, String(k + 1)));
        row.forEach(function (v) { tr.appendChild(h("td", "num", String(v))); });
        t.appendChild(tr);
      });
      c.push(field("hand_scores", t, pub, "hand scores"));
    }
    return c;
  }
  function rummyCenter(step, pub) {
    var c = [];
    var tbl = h("div", "melds");
    (pub.table || []).forEach(function (m) { var d = h("div", "meld"); d.appendChild(cards(m)); tbl.appendChild(d); });
    if (!(pub.table || []).length) tbl.appendChild(h("span", "muted small", "nothing melded yet"));
    c.push(field("table", tbl, pub, "table"));
    c.push(field("stock_size", pub.stock_size, pub, "stock"));
    if (Array.isArray(pub.scores)) c.push(field("scores", labelled(pub.scores, seatName, "scores", pub), pub));
    if (Array.isArray(pub.log) && pub.log.length) c.push(field("log", pub.log, pub));
    return c;
  }
  function auctionCenter(step, pub) {
    var c = [];
    var pic = h("div", "pile-line");
    add(pic, h("span", "k", "picture"), pub.picture ? card(pub.picture) : h("span", "muted", "-"),
      h("span", "small", " round " + pub.round + ", turned by "), seatTag(pub.turner));
    c.push(pic);
    if (Array.isArray(pub.bids) && pub.bids.length) {
      var b = h("div", "bids");
      pub.bids.forEach(function (x) {
        var it = h("span", "bid");
        add(it, seatTag(x[0]), h("span", null, " " + (x[1] ? x[1] : "pass")));
        b.appendChild(it);
      });
      c.push(field("bids", b, pub));
    }
    if (pub.high_bidder >= 0) { var hb = h("span"); add(hb, h("span", null, pub.high_bid + " by "), seatTag(pub.high_bidder)); c.push(field("high_bid", hb, pub, "high bid")); }
    if (Array.isArray(pub.bidding_order) && pub.bidding_order.length) {
      var o = h("span");
      pub.bidding_order.forEach(function (s, i) { if (i) o.appendChild(document.createTextNode(", ")); o.appendChild(seatTag(s)); });
      c.push(field("bidding_order", o, pub, "bidding order"));
    }
    if (pub.barred >= 0) c.push(field("barred", pub.barred, pub));
    c.push(field("stock", h("span", null, pub.picture_stock + " pictures, " + pub.money_stock + " money cards, " +
      (pub.paid_pile || []).length + " paid"), pub));
    if (Array.isArray(pub.match_points)) c.push(field("match_points", labelled(pub.match_points, seatName, "match_points", pub), pub, "games won"));
    if (Array.isArray(pub.log) && pub.log.length) c.push(field("log", pub.log, pub));
    return c;
  }
  var CENTER = { bridge: bridgeCenter, calypso: calypsoCenter, canasta: canastaCenter, rummy: rummyCenter, auction: auctionCenter };

  // -- seats ------------------------------------------------------------------------------------
  function seatPanel(s, step) {
    var pub = step.public, game = data.game, p = h("div", "seat-panel seat-" + s);
    p.setAttribute("data-seat", s);
    var acting = game === "bridge" && typeof pub.playing_hand === "number" && pub.playing_hand >= 0 ? pub.playing_hand : step.to_act;
    if (acting === s) p.className += " to-act";
    var head = h("div", "seat-head");
    head.appendChild(h("b", "seat-label", seatName(s)));
    var entrant = data.seats[s] || "";
    if (entrant && entrant !== seatName(s) && seatName(s).indexOf(entrant + " #") !== 0) head.appendChild(h("span", "entrant", " " + entrant));
    if (pub.dealer === s) head.appendChild(badge("D", "dealer", "dealer"));
    if (game === "bridge") {
      if (Array.isArray(pub.vulnerable) && pub.vulnerable[s % 2]) {
        p.className += " vul";
        var vb = badge("vul", "vul", "vulnerable");
        vb.setAttribute("aria-label", "vulnerable");
        head.appendChild(vb);
      }
      if (pub.declarer === s) head.appendChild(badge("declarer", "declarer"));
      if (pub.dummy === s) { p.className += " dummy"; head.appendChild(badge("dummy", "dummy-badge")); }
    }
    if (game === "calypso" && data.seat_trumps) {
      var tr = data.seat_trumps[s];
      head.appendChild(badge("trump " + SUITS[tr][0], "trump " + SUITS[tr][1], "personal trump suit"));
    }
    if (game === "canasta" && data.sides && data.sides.length < data.seat_labels.length) {
      var side = sideOf(s);
      if (side >= 0) head.appendChild(h("span", "muted small", " side " + sideName(side)));
    }
    if (acting === s) head.appendChild(badge(game === "bridge" && pub.dummy === s ? "to play (by declarer)" : "to act", "running"));
    p.appendChild(head);
    var handShown = false;
    if (step.seats) {
      var priv = step.seats[s];
      if (step.dealt && step.dealt[s] && (!Array.isArray(priv.hand) || !priv.hand.length)) {
        var dl = handField(step.dealt[s], game, "dealt");
        dl.insertBefore(h("span", "k", "as dealt"), dl.firstChild);
        p.appendChild(dl);
        handShown = true;
      }
      Object.keys(priv).forEach(function (k) {
        if (k === "hand" && Array.isArray(priv.hand)) { if (!handShown || priv.hand.length) p.appendChild(handField(priv.hand, game, "hand")); return; }
        if (priv[k] === null || priv[k] === undefined) return;  // e.g. rummy's "drawn" when nothing was drawn
        p.appendChild(field(k, priv[k], pub, k === "purchasing_power" ? "purchasing power" : null));
      });
    } else {
      var isDummy = game === "bridge" && pub.dummy === s && Array.isArray(pub.dummy_hand) && pub.dummy_hand.length > 0;
      if (isDummy) p.appendChild(handField(pub.dummy_hand, game, "dummy"));
      else {
        var n = step.hand_counts ? step.hand_counts[s] : (pub.hand_sizes ? pub.hand_sizes[s] : null);
        var hid = h("div", "hidden-hand", n === null || n === undefined ? "hand hidden" : "");
        if (n !== null && n !== undefined) for (var i = 0; i < Math.min(n, 30); i++) hid.appendChild(h("span", "card back", "\u00a0"));
        p.appendChild(hid);
      }
    }
    (data.per_seat || []).forEach(function (k) {
      if (k === "hand_sizes" && (step.seats || !Array.isArray(pub[k]))) return;
      if (Array.isArray(pub[k]) && pub[k].length === data.seat_names.length) {
        var v = pub[k][s];
        if (k === "melded") { if (v) p.appendChild(badge("has melded", "done")); return; }
        p.appendChild(field(k, v, pub, k === "hand_sizes" ? "cards" : k === "match_points" ? "games won" : null));
      }
    });
    return p;
  }

  // -- a view -----------------------------------------------------------------------------------
  function render() {
    if (!data || !data.steps.length) return;
    var step = data.steps[idx], pub = step.public, n = data.seat_names.length;
    el("slider").value = idx;
    el("step-label").textContent = "step " + idx + " / " + (data.steps.length - 1);
    var a = el("action");
    a.textContent = "";
    if (!step.action) a.appendChild(h("b", null, "The deal"));
    else {
      var who = h("b");
      add(who, seatTag(step.action.seat));
      if (data.game === "bridge" || data.game === "calypso") who.appendChild(h("span", "entrant", " (" + (data.seats[step.action.seat] || "") + ")"));
      who.appendChild(document.createTextNode(": "));
      a.appendChild(who);
      var txt = step.action.text;
      a.appendChild(data.game === "bridge" && !isCard(txt) ? call(txt) : (isCard(txt) ? card(txt) : words(txt)));
      if (step.action.default) a.appendChild(badge("default", "failed"));
      if (step.action.forced) a.appendChild(badge("forced", "pending"));
    }
    if (step.status) { var st = h("div", "muted small", step.status); st.id = "status"; a.appendChild(st); }
    var table = el("table");
    table.textContent = "";
    table.className = "table " + (n === 4 ? "compass" : "ring") + " game-" + data.game;
    var center = h("div", "center");
    var parts = CENTER[data.renderer] ? CENTER[data.renderer](step, pub) : Object.keys(pub).sort().map(function (k) { return field(k, pub[k], pub); });
    parts.forEach(function (x) { center.appendChild(x); });
    for (var s = 0; s < n; s++) table.appendChild(seatPanel(s, step));
    table.appendChild(center);
    var below = el("below");
    if (below) {
      below.textContent = "";
      if (data.game === "bridge") { var g = trickGrid(pub); if (g) below.appendChild(g); }
    }
    var all = el("public");
    all.textContent = "";
    Object.keys(pub).sort().forEach(function (k) { all.appendChild(field(k, pub[k], pub)); });
    box.setAttribute("data-step", idx);
    box.setAttribute("data-revealed", data.revealed ? "1" : "0");
  }
  // Every step has a URL: ?step=N (the server passes it as data-start) or #step-N opens
  // the match at step N, and stepping keeps the address bar on the step shown.
  function stepFromUrl() {
    var m = /^#step-(\d+)$/.exec(location.hash || "");
    if (m) return parseInt(m[1], 10);
    var q = /[?&]step=(\d+)(?:&|$)/.exec(location.search || "");
    if (q) return parseInt(q[1], 10);
    var d = parseInt(box.getAttribute("data-start") || "0", 10);
    return isNaN(d) ? 0 : d;
  }
  function stepUrl(i) {
    var rest = (location.search || "").replace(/^\?/, "").split("&").filter(function (p) { return p && !/^step=/.test(p); });
    if (i > 0) rest.push("step=" + i);
    return location.pathname + (rest.length ? "?" + rest.join("&") : "");
  }
  function showUrl() {
    var url = stepUrl(idx);
    var link = el("step-link");
    if (link) link.setAttribute("href", url);
    if (window.history && history.replaceState && location.pathname + location.search + location.hash !== url)
      history.replaceState(null, "", url);
  }
  function go(i) { if (!data) return; idx = Math.max(0, Math.min(data.steps.length - 1, i)); render(); showUrl(); }
  window.addEventListener("hashchange", function () { if (/^#step-\d+$/.test(location.hash)) { stop(); go(stepFromUrl()); } });
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
      go(stepFromUrl());
    })
    .catch(function (err) { el("step-label").textContent = "replay unavailable: " + err.message; });
})();
