// Live ladder leaderboard: polls the ladder's JSON and redraws the leaderboard and the
// recent encounters (the same cells as the server's first drawing).
(function () {
  "use strict";
  var root = document.getElementById("ladder");
  if (!root) return;
  var url = root.getAttribute("data-poll");
  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function num(v, digits) { return v === null || v === undefined ? "-" : Number(v).toFixed(digits); }
  function pts(v) {
    if (v === null || v === undefined) return "-";
    var t = Number(v).toFixed(2).replace(/\.?0+$/, "");
    return t === "-0" ? "0" : t;
  }
  function link(name) { var a = h("a", null, name); a.href = "/bots/" + encodeURIComponent(name); return a; }
  function td(cls, content) { var c = h("td", cls); if (content instanceof Node) c.appendChild(content); else c.textContent = content; return c; }
  function interval(r, scale) {
    if (r.low === null || r.low === undefined || !scale || !(scale[1] > scale[0])) return h("span", "muted small", "no games yet");
    var span = scale[1] - scale[0], box = h("div", "interval");
    box.title = Math.round(r.low) + " .. " + Math.round(r.high);
    var band = h("div", "band"), dot = h("div", "dot");
    band.style.left = (100 * (r.low - scale[0]) / span).toFixed(1) + "%";
    band.style.width = (100 * (r.high - r.low) / span).toFixed(1) + "%";
    dot.style.left = (100 * (r.rating - scale[0]) / span).toFixed(1) + "%";
    box.appendChild(band); box.appendChild(dot);
    return box;
  }
  function leaderboard(d) {
    var body = document.querySelector("#leaderboard tbody");
    if (!body) return;
    body.textContent = "";
    d.rows.forEach(function (r) {
      var tr = h("tr");
      tr.setAttribute("data-entrant", r.entrant);
      [td("num", String(r.rank)), td(null, link(r.entrant)), td("small", r.bot),
        td("num rating", num(r.rating, 2)), td("num err", r.error === null || r.error === undefined ? "-" : "\u00b1" + num(r.error, 1)),
        td("interval-col", interval(r, d.scale)), td("num", String(r.encounters)), td("num games", pts(r.games)),
        td("num", num(r.score, 2))].forEach(function (c) { tr.appendChild(c); });
      body.appendChild(tr);
    });
  }
  function recent(d) {
    var body = document.querySelector("#recent tbody");
    if (!body) return;
    body.textContent = "";
    d.recent.forEach(function (e) {
      var tr = h("tr"), res = h("span");
      tr.setAttribute("data-encounter", e.encounter);
      var r = e.result || {};
      if (r.margin !== undefined) {
        if (r.winner) { res.appendChild(h("b", null, r.winner)); res.appendChild(document.createTextNode(" by " + pts(Math.abs(r.margin)) + " " + r.unit)); }
        else res.textContent = "drawn";
      } else if (r.totals) res.textContent = Object.keys(r.totals).map(function (k) { return k + " " + pts(r.totals[k]); }).join(", ");
      else res = h("span", "muted", "-");
      [td("num", String(e.encounter)), td(null, e.sides.join(" vs ")), td(null, res),
        td(null, h("span", "badge " + e.status, e.status)), td("small", e.started || "-")].forEach(function (c) { tr.appendChild(c); });
      body.appendChild(tr);
    });
  }
  function set(field, text) { var el = root.querySelector('[data-field="' + field + '"]'); if (el) el.textContent = text; }
  function tick() {
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
      .then(function (d) {
        leaderboard(d);
        recent(d);
        set("encounters", d.encounters);
        set("played", d.played);
        set("status", d.status);
        var up = document.getElementById("ladder-updated");
        if (up) up.textContent = d.updated;
        var finished = d.finished;
        var live = document.getElementById("ladder-live");
        if (live) { live.textContent = finished ? "final" : "live"; live.className = "badge " + (finished ? "done" : "running") + " live-badge"; }
        root.setAttribute("data-polled", String(Number(root.getAttribute("data-polled") || "0") + 1));
        setTimeout(tick, finished ? 15000 : 3000);
      })
      .catch(function () { var up = document.getElementById("ladder-updated"); if (up) up.textContent = "server unreachable, retrying"; setTimeout(tick, 5000); });
  }
  setTimeout(tick, 1000);
})();
