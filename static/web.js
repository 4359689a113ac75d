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
  // New game: show the chosen game's options only (without the script
  // every game's are shown, and only the chosen game's are read).
  var ruleset = document.getElementById("ruleset");
  if (ruleset) {
    var showOptions = function () {
      var sets = document.querySelectorAll("fieldset[data-ruleset]");
      Array.prototype.forEach.call(sets, function (f) { f.hidden = f.getAttribute("data-ruleset") !== ruleset.value; });
      // As many seat rows as the game seats; say how many it needs.
      var o = ruleset.options[ruleset.selectedIndex];
      var min = o ? parseInt(o.getAttribute("data-min"), 10) : 0;
      var max = o ? parseInt(o.getAttribute("data-max"), 10) : 0;
      var rows = document.querySelectorAll(".seat-row[data-row]");
      Array.prototype.forEach.call(rows, function (r) {
        var i = parseInt(r.getAttribute("data-row"), 10);
        var filled = Array.prototype.some.call(r.querySelectorAll("input"), function (x) { return x.value !== ""; });
        r.hidden = max > 0 && i >= max && !filled;
      });
      var count = document.getElementById("seats-count");
      if (count && o) { count.textContent = min === max ? "This game seats " + max + " players." : "This game seats " + min + " to " + max + " players."; }
    };
    ruleset.addEventListener("change", showOptions);
    showOptions();
  }
  // A form that asks before it acts (undo; data-confirm holds the
  // question): nothing is sent unless the player says yes. Without the
  // script the form acts at once, as its button says.
  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var ask = form && form.getAttribute && form.getAttribute("data-confirm");
    if (ask && !window.confirm(ask)) { ev.preventDefault(); }
  }, true);
  // What a part of the page gains from the script, again after it is
  // redrawn: tallies of number fields, deadlines in the browser's zone.
  var enhance = function (root) {
    // A total limit across several number fields (a game's form marks its
    // tally with data-sum-of, the fields' selector, and data-min/data-max):
    // say how many are chosen while typing.
    var counts = root.querySelectorAll("[data-sum-of]");
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
    var stamps = root.querySelectorAll("time[data-local]");
    Array.prototype.forEach.call(stamps, function (t) {
      var d = new Date(t.getAttribute("datetime"));
      if (isNaN(d.getTime())) { return; }
      try {
        t.textContent = d.toLocaleString(undefined, { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short" });
      } catch (e) { /* the server's words stay */ }
    });
  };
  enhance(document);

  // The board as the input: one of the player's own units, selected on
  // the map (by pointer, or by Tab and Enter), lights up the areas it may
  // move to with their cost, and the area it stands on when it may act
  // there (the Berserkur's attack, the Kaupmadur's trade); choosing one
  // sends that move or attack as the lists below would, or opens the
  // trade's list. A building on the player's own board chooses an upgrade
  // of it to build. The lists stay the keyboard's and screen reader's full
  // way, and every form works without this script.
  var SVG = "http://www.w3.org/2000/svg";
  // What a unit may do where it stands: the list of it, and its words.
  var HERE = { berserkur: ["attack", "attack"], kaupmadur: ["trade", "trade"] };
  var boardInput = function () {
    var decide = document.getElementById("decide");
    var svg = document.querySelector("#board svg.board");
    if (!decide || !svg) { return; }
    var me = decide.getAttribute("data-seat");
    var say = function (text) {
      var s = document.getElementById("board-input-status");
      if (!s) {
        s = document.createElement("p");
        s.id = "board-input-status";
        s.className = "small";
        s.setAttribute("role", "status");
        svg.closest("figure").after(s);
      }
      s.textContent = text;
    };
    var clear = function () {
      Array.prototype.forEach.call(svg.querySelectorAll(".reach"), function (a) {
        a.classList.remove("reach");
        a.removeAttribute("data-move");
        a.removeAttribute("data-act");
        a.removeAttribute("tabindex");
        a.removeAttribute("role");
        a.removeAttribute("aria-label");
      });
      Array.prototype.forEach.call(svg.querySelectorAll(".reach-cost"), function (t) { t.remove(); });
      Array.prototype.forEach.call(svg.querySelectorAll("g.unit.selected"), function (u) { u.classList.remove("selected"); });
      svg.classList.remove("choosing");
    };
    var mark = function (area, text) {
      var box = area.getBBox();
      var t = document.createElementNS(SVG, "text");
      t.setAttribute("class", "reach-cost");
      t.setAttribute("x", String(box.x + box.width / 2));
      t.setAttribute("y", String(box.y + box.height / 2 - 4));
      t.setAttribute("text-anchor", "middle");
      t.textContent = text;
      svg.appendChild(t);
    };
    var light = function (area, label) {
      area.classList.add("reach");
      area.setAttribute("tabindex", "0");
      area.setAttribute("role", "button");
      area.setAttribute("aria-label", label);
    };
    var units = svg.querySelectorAll("g.unit[data-seat='" + me + "']");
    var any = false;
    Array.prototype.forEach.call(units, function (u) {
      var unit = u.getAttribute("data-unit");
      var select = document.getElementById("move-" + unit);
      var here = HERE[unit] && document.getElementById(HERE[unit][0]);
      if (!select && !here) { return; }
      any = true;
      var name = unit.charAt(0).toUpperCase() + unit.slice(1);
      u.classList.add("selectable");
      u.setAttribute("tabindex", "0");
      u.setAttribute("role", "button");
      u.setAttribute("aria-label", "Select your " + name + " to see what it may do on the board");
      var pick = function () {
        clear();
        u.classList.add("selected");
        svg.classList.add("choosing");
        var n = 0;
        Array.prototype.forEach.call(select ? select.options : [], function (o) {
          var c;
          try { c = JSON.parse(o.value); } catch (e) { return; }
          var area = svg.querySelector("[data-area='area-" + c.to + "']");
          if (!area) { return; }
          var words = o.textContent.split(" · ");
          var cost = words[1] || "";
          var m = /(\d+) \S+ card/.exec(cost);
          var short = m ? m[1] + " card" : cost.indexOf("no card") === 0 ? "free" : cost;
          light(area, "Move the " + name + " to " + words[0] + (cost ? " (" + cost + ")" : ""));
          area.setAttribute("data-move", o.value);
          mark(area, short);
          n += 1;
        });
        var at = here && svg.querySelector("[data-area='" + u.getAttribute("data-at") + "']");
        var what = "";
        if (at && here.options.length) {
          var first = here.options[0];
          light(at, (unit === "berserkur" ? "Attack here: " : "Trade here: ") + first.textContent +
            (here.options.length > 1 ? " (" + here.options.length + " choices in the list below)" : ""));
          at.setAttribute("data-act", unit);
          mark(at, HERE[unit][1]);
          what = unit === "berserkur" ? " The area he stands on is lit to attack it." : " The area he stands on is lit to trade there.";
        }
        say((n ? "Your " + name + " may move to the " + n + " lit area(s), each with its cost: choose one on the map (or in the list below)." :
          "Your " + name + " cannot move now.") + what);
      };
      u.addEventListener("click", pick);
      u.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(); } });
    });
    buildInput(say);
    if (!any || svg.getAttribute("data-input") === "on") { return; }
    svg.setAttribute("data-input", "on");
    svg.setAttribute("role", "group");
    var submit = function (select, value) {
      select.value = value;
      if (select.form.requestSubmit) { select.form.requestSubmit(); } else { select.form.submit(); }
    };
    var act = function (target) {
      var area = target.closest && target.closest("[data-move], [data-act]");
      if (!area) { return false; }
      var unit = area.getAttribute("data-act");
      if (unit === "berserkur") {
        // The attack with no extra disks; more are chosen in the list.
        var attack = document.getElementById("attack");
        if (!attack || !attack.form) { return false; }
        var plain = Array.prototype.filter.call(attack.options, function (o) {
          try { var c = JSON.parse(o.value); return c.claim !== false && !c.reinforce; } catch (e) { return false; }
        })[0] || attack.options[0];
        submit(attack, plain.value);
        return true;
      }
      if (unit === "kaupmadur") {
        // A trade is chosen from its list (or the template of several deals).
        var trade = document.getElementById("trade");
        if (!trade) { return false; }
        trade.scrollIntoView({ block: "center" });
        trade.focus();
        say("Choose the trade in the list, then press Trade.");
        return true;
      }
      var c = JSON.parse(area.getAttribute("data-move"));
      var select = document.getElementById("move-" + c.unit);
      if (!select || !select.form) { return false; }
      submit(select, area.getAttribute("data-move"));
      return true;
    };
    svg.addEventListener("click", function (e) { act(e.target); });
    svg.addEventListener("keydown", function (e) {
      if ((e.key === "Enter" || e.key === " ") && act(e.target)) { e.preventDefault(); }
    });
    say("Select one of your units on the map to see where it may move or act, and what it costs.");
  };
  // Building from the player's own board: a building chooses the first
  // upgrade of it in the market as the next build wish of the standing
  // orders (saved with the orders form, as choosing it there would be).
  var buildInput = function (say) {
    var wishes = document.querySelectorAll("select[id^='orders-build-']");
    var board = document.querySelector("#my-board svg.player-board");
    if (!board || !wishes.length) { return; }
    // Its buildings become buttons: the board is a group of them, no
    // longer one picture (a picture holds no controls).
    board.setAttribute("role", "group");
    Array.prototype.forEach.call(board.querySelectorAll("g.building[data-building]"), function (b) {
      if (b.getAttribute("role") === "button") { return; }
      var key = b.getAttribute("data-building");
      var name = key.charAt(0).toUpperCase() + key.slice(1);
      b.setAttribute("tabindex", "0");
      b.setAttribute("role", "button");
      b.setAttribute("aria-label", "Build an upgrade of your " + name);
      b.classList.add("selectable");
      var choose = function () {
        var free = Array.prototype.filter.call(wishes, function (w) { return w.value === ""; })[0] || wishes[wishes.length - 1];
        var option = Array.prototype.filter.call(free.options, function (o) { return o.value.indexOf(key + "/") === 0; })[0];
        if (!option) { say("No upgrade of the " + name + " is in the market now."); return; }
        free.value = option.value;
        free.dispatchEvent(new Event("change", { bubbles: true }));
        var open = free.closest("details");
        if (open) { open.open = true; }
        free.scrollIntoView({ block: "center" });
        free.focus();
        say("Wished for: " + option.textContent + ". Save your standing orders to keep it (another upgrade may be chosen in the list).");
      };
      b.addEventListener("click", choose);
      b.addEventListener("keydown", function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); choose(); } });
    });
  };

  // Fallen Kingdoms' turn program on the map: the composer's city lists
  // (where the god's power goes, where new units go, each move's from and
  // to) may be filled by clicking a city on the board (or Tab and Enter
  // on it). The list last chosen (the first one to start with) is the one
  // the map fills; the cities it may take are lit and named for a screen
  // reader, and after a move's "from" the map goes on to its "to". The
  // lists stay the full way without the script.
  var fkProgramInput = function () {
    var form = document.getElementById("fk-program-form");
    var svg = document.querySelector("#board svg.fk-board");
    if (!form || !svg) { return; }
    var lists = Array.prototype.filter.call(form.querySelectorAll("select"), function (s) {
      return s.id === "prog-god" || s.id === "prog-place-city" || /^prog-move-\d+-(from|to)$/.test(s.id);
    });
    if (!lists.length) { return; }
    var labelOf = function (s) {
      var l = form.querySelector("label[for='" + s.id + "']");
      var set = s.closest("fieldset");
      var legend = set && set.querySelector("legend");
      return (legend ? legend.textContent + ": " : "") + (l ? l.textContent : s.id);
    };
    // A move's "to" takes only a city next to its "from" (the city's
    // neighbours are on the map as data-near).
    var fromOf = function (s) {
      var m = /^prog-move-(\d+)-to$/.exec(s.id);
      return m ? document.getElementById("prog-move-" + m[1] + "-from") : null;
    };
    var near = function (city) {
      var g = svg.querySelector("g.city[data-area='city-" + city + "']");
      return g ? (g.getAttribute("data-near") || "").split(" ") : [];
    };
    var fits = function (s, value) {
      var from = fromOf(s);
      if (!from || !value) { return true; }
      if (!from.value) { return false; }
      return near(from.value).indexOf(value) >= 0;
    };
    var narrow = function (to) {
      Array.prototype.forEach.call(to.options, function (o) {
        o.disabled = !!o.value && !fits(to, o.value);
      });
      if (to.value && !fits(to, to.value)) { to.value = ""; }
    };
    var valueFor = function (s, city) {
      if (!fits(s, city)) { return null; }
      var hit = null;
      Array.prototype.forEach.call(s.options, function (o) {
        if (o.value === city || o.value === "on-" + city) { hit = o; }
      });
      return hit;
    };
    var status = document.getElementById("prog-map-status");
    if (!status) {
      status = document.createElement("p");
      status.id = "prog-map-status";
      status.className = "small map-status";
      status.setAttribute("role", "status");
      var help = document.getElementById("prog-map-help");
      if (help) { help.after(status); } else { form.prepend(status); }
    }
    var active = form.__fkActive && lists.indexOf(form.__fkActive) >= 0 ? form.__fkActive : lists[0];
    var cities = svg.querySelectorAll("g.city[data-area]");
    var light = function () {
      Array.prototype.forEach.call(cities, function (g) {
        var k = g.getAttribute("data-area").replace("city-", "");
        var o = valueFor(active, k);
        var name = (g.querySelector("title") || { textContent: "city" }).textContent.split(":")[0];
        g.classList.toggle("reach", !!o);
        g.classList.toggle("picked", !!o && active.value === o.value);
        if (o) {
          g.setAttribute("tabindex", "0");
          g.setAttribute("role", "button");
          g.setAttribute("aria-label", name + ": choose for " + labelOf(active));
        } else {
          g.removeAttribute("tabindex");
          g.removeAttribute("role");
          g.removeAttribute("aria-label");
        }
      });
      svg.classList.add("choosing");
      status.textContent = "The map now fills \u201c" + labelOf(active) + "\u201d: click a lit city.";
    };
    var use = function (s) { active = s; form.__fkActive = s; light(); };
    lists.forEach(function (s) {
      var from = fromOf(s);
      if (from) { narrow(s); }
      if (s.getAttribute("data-map") === "on") { return; }
      s.setAttribute("data-map", "on");
      s.addEventListener("focus", function () { use(s); });
      s.addEventListener("change", function () { if (active === s) { light(); } });
      if (from) { from.addEventListener("change", function () { narrow(s); if (active === s) { light(); } }); }
    });
    var choose = function (g) {
      var k = g.getAttribute("data-area").replace("city-", "");
      var o = valueFor(active, k);
      if (!o) { return false; }
      active.value = o.value;
      active.dispatchEvent(new Event("change", { bubbles: true }));
      var picked = labelOf(active) + ": " + o.textContent;
      var m = /^prog-move-(\d+)-from$/.exec(active.id);
      var next = m && document.getElementById("prog-move-" + m[1] + "-to");
      if (next) { use(next); } else { light(); }
      status.textContent = "Chosen \u2014 " + picked + "." + (next ? " Now click the city to move to." : "");
      return true;
    };
    if (svg.getAttribute("data-program-input") !== "on") {
      svg.setAttribute("data-program-input", "on");
      svg.setAttribute("role", "group");
      svg.addEventListener("click", function (e) {
        var g = e.target.closest && e.target.closest("g.city[data-area]");
        if (g) { choose(g); }
      });
      svg.addEventListener("keydown", function (e) {
        var g = e.target.closest && e.target.closest("g.city[data-area]");
        if (g && (e.key === "Enter" || e.key === " ") && choose(g)) { e.preventDefault(); }
      });
    }
    light();
  };
  boardInput();
  fkProgramInput();

  // The conversation panel: how many messages of each thread are new to
  // this browser (the last one read of each thread is kept in it; a thread
  // open on the screen is read), and the panel redrawn from the page as
  // the server now draws it, keeping which threads are open, what is being
  // typed and where the focus is.
  var pressKey = function (p) { return "rs-read-" + p.getAttribute("data-key"); };
  var unread = function () {
    var p = document.getElementById("press");
    if (!p) { return; }
    var marks = {};
    try { marks = JSON.parse(window.localStorage.getItem(pressKey(p)) || "{}") || {}; } catch (e) { marks = {}; }
    var total = 0;
    Array.prototype.forEach.call(p.querySelectorAll("details.thread[data-channel]"), function (t) {
      var ch = t.getAttribute("data-channel");
      var last = parseInt(t.getAttribute("data-last"), 10) || 0;
      if (t.open && last > (marks[ch] || 0)) { marks[ch] = last; }
      var seen = marks[ch] || 0;
      var n = 0;
      Array.prototype.forEach.call(t.querySelectorAll("li[data-seq]"), function (li) {
        if (!li.classList.contains("mine") && parseInt(li.getAttribute("data-seq"), 10) > seen) { n += 1; }
      });
      var badge = t.querySelector("[data-unread]");
      if (badge) { badge.textContent = n ? n + " new" : ""; }
      total += n;
    });
    try { window.localStorage.setItem(pressKey(p), JSON.stringify(marks)); } catch (e) { /* counts stay for this page */ }
    var sum = document.getElementById("press-unread");
    if (sum) { sum.textContent = total ? total + " new" : ""; }
  };
  var wirePress = function () {
    var p = document.getElementById("press");
    if (!p) { return; }
    Array.prototype.forEach.call(p.querySelectorAll("details.thread"), function (t) { t.addEventListener("toggle", unread); });
    unread();
  };
  wirePress();
  var swapPress = function (doc) {
    var now = document.getElementById("press");
    var next = doc.getElementById("press");
    if (!now || !next) { return; }
    var focused = document.activeElement && now.contains(document.activeElement) ? document.activeElement.id : null;
    Array.prototype.forEach.call(next.querySelectorAll("details.thread"), function (d) {
      var was = document.getElementById(d.id);
      if (was) { d.open = was.open; }
    });
    Array.prototype.forEach.call(next.querySelectorAll("textarea, input[type=checkbox]"), function (x) {
      var was = document.getElementById(x.id);
      if (!was) { return; }
      if (x.type === "checkbox") { x.checked = was.checked; } else { x.value = was.value; }
    });
    now.replaceWith(next);
    enhance(next);
    wirePress();
    if (focused && document.getElementById(focused)) { document.getElementById(focused).focus(); }
  };

  // At the head of a running game the page follows the game live: each
  // new event redraws the header, the boards, the log and the decision
  // from the page as the server now draws it, without a reload. A
  // decision being composed is kept as it is, and the top of the page
  // says in words what happened meanwhile; so does a rollback, with its
  // reason.
  var live = document.getElementById("live");
  if (live && window.EventSource && window.fetch && window.DOMParser) {
    var head = parseInt(live.getAttribute("data-head"), 10);
    var composing = false;
    var decide = document.getElementById("decide");
    var watchDecide = function (el) {
      if (!el) { return; }
      el.addEventListener("input", function () { composing = true; });
      el.addEventListener("change", function () { composing = true; });
    };
    watchDecide(decide);
    var told = [];
    var rollback = null;
    var busy = false;
    var again = false;
    var notice = function (text, alert) {
      var n = document.getElementById("live-notice");
      if (!n) {
        n = document.createElement("p");
        n.id = "live-notice";
        var table = document.getElementById("table");
        if (table && table.parentNode) { table.parentNode.insertBefore(n, table.nextSibling); } else { document.querySelector("main").prepend(n); }
      }
      n.className = alert ? "notice error" : "notice";
      n.setAttribute("role", alert ? "alert" : "status");
      n.textContent = text;
    };
    var swap = function (doc, id) {
      var now = document.getElementById(id);
      var next = doc.getElementById(id);
      if (now && next) {
        now.replaceWith(next);
        enhance(next);
      } else if (now && !next) {
        now.remove();
      } else if (!now && next) {
        // A part the page did not have (a decision that became ours):
        // put it where the new page has it, before the first part after
        // it that this page has too (a part, or the wrapper around one).
        var after = null;
        for (var sib = next.nextElementSibling; sib && !after; sib = sib.nextElementSibling) {
          var known = sib.id ? sib : sib.querySelector("[id]");
          var here = known && document.getElementById(known.id);
          if (!here) { continue; }
          // Climb as far above the known part as the wrapper is in the new page.
          for (var up = known; up !== sib && here; up = up.parentElement) { here = here.parentElement; }
          after = here;
        }
        if (after) { after.before(next); enhance(next); } else { notice("It is your decision now: reload the page to make it.", false); }
      }
    };
    var redraw = function () {
      if (busy) { again = true; return; }
      busy = true;
      // The game page itself (this page may be the answer to a refused
      // form, at the form's address).
      fetch(live.getAttribute("data-page") || window.location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          ["table", "my-board", "board", "other-boards", "log"].forEach(function (id) { swap(doc, id); });
          swapPress(doc);
          var mine = told.length > 3 ? told.slice(0, 3).join("; ") + " and " + (told.length - 3) + " more (see the log)" : told.join("; ");
          if (composing && document.getElementById("decide")) {
            notice((rollback ? "The game was rolled back while you were choosing: " + rollback + ". " : "While you were choosing: " + mine + ". ") +
              "Here is the board now; what you entered is kept below, and the game will say if it no longer fits.", !!rollback);
          } else {
            swap(doc, "decide");
            watchDecide(document.getElementById("decide"));
            composing = false;
            if (rollback) { notice("The game was rolled back: " + rollback + ". Here is the board now.", true); }
            else if (mine) { notice("New: " + mine + ". Here is the board now.", false); }
          }
          told = [];
          rollback = null;
          var nextLive = doc.getElementById("live");
          if (nextLive) { live.setAttribute("data-head", nextLive.getAttribute("data-head")); }
          if (doc.title) { document.title = doc.title; }
          boardInput();
          fkProgramInput();
        })
        .catch(function () {
          notice("The game has moved on, but the page could not be redrawn: reload it to see the game now.", false);
        })
        .then(function () {
          busy = false;
          if (again) { again = false; redraw(); }
        });
    };
    // A message written at the table: the panel alone is redrawn.
    var pressBusy = false;
    var pressAgain = false;
    var redrawPress = function () {
      if (pressBusy) { pressAgain = true; return; }
      pressBusy = true;
      fetch(live.getAttribute("data-page") || window.location.pathname, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) { swapPress(new DOMParser().parseFromString(html, "text/html")); })
        .catch(function () { notice("A new message came, but the page could not be redrawn: reload it to read it.", false); })
        .then(function () {
          pressBusy = false;
          if (pressAgain) { pressAgain = false; redrawPress(); }
        });
    };
    var pending = null;
    // The last event this page has heard of (each frame's id is its seq).
    var seen = head;
    var es = null;
    var connect = function () {
      if (es) { return; }
      es = new EventSource(live.getAttribute("data-stream") + "?from=" + (seen + 1));
      es.addEventListener("event", function (m) {
        var seq = parseInt(m.lastEventId, 10);
        if (seq <= seen) { return; }
        if (seq > seen) { seen = seq; }
        try {
          var e = JSON.parse(m.data);
          // A message's event (its envelope is for no seat; this stream is
          // the public's): the panel alone is redrawn, from the page as this
          // seat reads it.
          if (e.visibility && e.visibility.seats && e.visibility.seats.length === 0 && e.actor === "system") { redrawPress(); return; }
          var k = e.body && e.body.kind === "kernel" && e.body.event ? e.body.event.type : null;
          if (k === "RolledBack" || k === "Undone") { rollback = e.text; } else if (e.text) { told.push(e.text); }
        } catch (err) { /* redraw all the same */ }
        // A move is several events in a burst: redraw once they are in.
        if (pending) { clearTimeout(pending); }
        pending = setTimeout(function () { pending = null; redraw(); }, 150);
      });
    };
    var disconnect = function () {
      if (es) { es.close(); es = null; }
    };
    // A page nobody sees holds no connection: a browser opens about six
    // to one server, and streams kept by hidden tabs or by pages in the
    // back-forward cache would make the next page load wait for one. The
    // stream is opened again, from the last event heard, when the page is
    // seen again; what happened meanwhile is redrawn then.
    window.addEventListener("pagehide", disconnect);
    window.addEventListener("pageshow", function (ev) { if (ev.persisted) { connect(); } });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "hidden") { disconnect(); } else { connect(); }
    });
    connect();
    live.textContent = "This page follows the game as it moves.";
  }
})();
