// Small conveniences; every page works without them.
(function () {
  "use strict";
  // Rewind: show the number while sliding, and go there when released.
  var range = document.getElementById("at");
  var out = document.getElementById("at-out");
  if (range && out) {
    range.addEventListener("input", function () { out.textContent = range.value; });
    range.addEventListener("change", function () { if (range.form) { range.form.submit(); } });
  }
  // New game: put the chosen game's default options in the box, unless edited.
  var ruleset = document.getElementById("ruleset");
  var options = document.getElementById("options");
  if (ruleset && options) {
    var shown = function () { var o = ruleset.options[ruleset.selectedIndex]; return o ? o.getAttribute("data-defaults") : ""; };
    var last = shown();
    ruleset.addEventListener("change", function () {
      if (options.value.trim() === "" || options.value === last) { options.value = shown(); }
      last = shown();
    });
  }
  // A total limit across several number fields (a game's form marks its
  // tally with data-sum-of, the fields' selector, and data-min/data-max):
  // say how many are chosen while typing.
  var counts = document.querySelectorAll("[data-sum-of]");
  Array.prototype.forEach.call(counts, function (count) {
    var min = parseInt(count.getAttribute("data-min"), 10);
    var max = parseInt(count.getAttribute("data-max"), 10);
    var form = count.closest("form") || document;
    var inputs = form.querySelectorAll(count.getAttribute("data-sum-of"));
    var tally = function () {
      var n = 0;
      for (var i = 0; i < inputs.length; i++) {
        var v = parseInt(inputs[i].value, 10);
        if (v > 0) { n += v; }
      }
      var want = min === max ? String(max) : min + " to " + max;
      var ok = n >= min && n <= max;
      count.textContent = n + " of " + want + " chosen" + (ok ? "" : n < min ? ": choose " + (min - n) + " more" : ": " + (n - max) + " too many");
      count.className = "sum-count " + (ok ? "ok" : "off");
    };
    for (var j = 0; j < inputs.length; j++) { inputs[j].addEventListener("input", tally); }
    tally();
  });
  // Deadlines of a reader whose time zone the server does not know: in
  // the browser's own.
  var stamps = document.querySelectorAll("time[data-local]");
  Array.prototype.forEach.call(stamps, function (t) {
    var d = new Date(t.getAttribute("datetime"));
    if (isNaN(d.getTime())) { return; }
    try {
      t.textContent = d.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
    } catch (e) { /* the server's words stay */ }
  });
  // At the head of a running game: say when the game moves on.
  var live = document.getElementById("live");
  if (live && window.EventSource) {
    var head = parseInt(live.getAttribute("data-head"), 10);
    var es = new EventSource(live.getAttribute("data-stream") + "?from=" + (head + 1));
    es.addEventListener("event", function () {
      live.textContent = "The game has moved on: reload the page to see it.";
      live.setAttribute("role", "status");
      live.className = "notice";
      es.close();
    });
  }
})();
