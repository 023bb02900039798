// Live progress: polls the JSON list of tournaments and updates rows marked data-id.
(function () {
  "use strict";
  var root = document.getElementById("tournaments");
  if (!root) return;
  var url = root.getAttribute("data-poll");
  var label = document.getElementById("poll-state");
  function set(row, field, fn) {
    var el = row.querySelector('[data-field="' + field + '"]');
    if (el) fn(el);
  }
  function tick() {
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (list) {
        var active = false;
        list.forEach(function (t) {
          var row = root.querySelector('[data-id="' + CSS.escape(t.id) + '"]');
          if (!row) return;
          set(row, "done", function (el) { el.textContent = t.done + "/" + t.total; });
          set(row, "bar", function (el) { el.style.width = t.percent + "%"; });
          set(row, "failed", function (el) { el.textContent = t.counts.failed; });
          set(row, "status", function (el) { el.textContent = t.status; el.className = "badge " + t.status; });
          if (t.status === "running" || t.status === "pending" || t.status === "paused") active = true;
        });
        if (label) label.textContent = "updated " + new Date().toLocaleTimeString();
        setTimeout(tick, active ? 2000 : 5000);
      })
      .catch(function () {
        if (label) label.textContent = "server unreachable, retrying";
        setTimeout(tick, 5000);
      });
  }
  setTimeout(tick, 1000);
})();
