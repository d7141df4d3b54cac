// The shared replay viewer: reads the episode embedded in the page and shows it step by step.
// Step 0 is the world at the start; step k the world after the k-th move (turns[k - 1]).
// The task's drawing, when the page has one, is window.MASE_DRAW(scene, element, options); a
// scene's "secret" part (what not every seat saw) is in the page only in the analyst's view,
// and drawn when options.secrets (the "show secrets" toggle) is on.
(function () {
  "use strict";

  var page = JSON.parse(document.getElementById("episode").textContent);
  var record = page.record;
  var frames = record.frames || [];
  var turns = record.turns || [];
  var events = record.events || [];
  var probes = record.probes || [];
  var beliefs = record.beliefs || [];
  var last = frames.length - 1;
  var current = 0;
  var timer = null;

  function $(id) { return document.getElementById(id); }

  var el = window.MASE_EL;  // dom.js

  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function show(value) {
    if (value === null || value === undefined) { return "-"; }
    if (typeof value === "string") { return value; }
    return JSON.stringify(value);
  }

  function factText(pair) {
    return pair[0].join(" ") + " = " + show(pair[1]);
  }

  // A scene the task does not draw: its keys as a table.
  function sceneTable(scene, element, options) {
    var rows = Object.keys(scene).filter(function (k) { return k !== "secret" || options.secrets; })
      .map(function (k) { return el("tr", {}, [el("th", {}, [k]), el("td", {}, [show(scene[k])])]); });
    element.appendChild(el("table", {}, rows));
  }

  function drawScene(frame) {
    var element = $("scene");
    clear(element);
    var options = { secrets: $("secrets").checked, step: current, frame: frame, el: el };
    var scene = frame.scene || {};
    var hasScene = Object.keys(scene).length > 0;
    if (hasScene && typeof window.MASE_DRAW === "function") {
      window.MASE_DRAW(scene, element, options);
    } else if (hasScene) {
      sceneTable(scene, element, options);
    } else {
      element.appendChild(el("pre", {}, [frame.text || ""]));
    }
  }

  function drawMove(frame) {
    var box = $("move");
    clear(box);
    if (current === 0) {
      box.appendChild(el("p", { "class": "note" }, ["The start of the episode."]));
      return;
    }
    var turn = turns[current - 1] || {};
    if (turn.hidden) {
      box.appendChild(el("p", { "class": "note" }, ["A move in round " + frame.round + (view.name === "common" ? " that not every seat saw." : " that " + view.name + " did not see.")]));
      return;
    }
    var action = turn.action;
    var said = action && typeof action === "object" ? (action.action !== undefined ? action.action : JSON.stringify(action)) : show(action);
    var outcome = (turn.outcome || []).join(", ");
    var invalid = (turn.outcome || []).some(function (o) { return String(o).indexOf("invalid") === 0; });
    box.appendChild(el("p", {}, [el("b", {}, [String(frame.actor || turn.agent || "?")]), " in round " + frame.round + ":"]));
    box.appendChild(el("pre", {}, [said]));
    box.appendChild(el("p", { "class": invalid ? "invalid" : "note" }, ["outcome: " + (outcome || "-") + "; reward since its last turn: " + show(turn.reward)]));
    if (action && typeof action === "object" && action.belief) {
      box.appendChild(el("details", {}, [el("summary", {}, ["its belief state"]), el("pre", {}, [action.belief])]));
    }
    if (turn.observation) {
      box.appendChild(el("details", {}, [el("summary", {}, ["what it saw"]), el("pre", {}, [turn.observation])]));
    }
    var calls = modelCalls(frame.actor);
    if (calls.length) {
      var list = el("details", { "class": "calls" }, [el("summary", {}, ["model calls (" + calls.length + ")"])]);
      calls.forEach(function (c) {
        var said = (c.messages || []).map(function (m) { return "[" + m.role + "]\n" + m.content; }).join("\n\n");
        list.appendChild(el("div", { "class": "call" }, [
          el("b", {}, [c.purpose + (c.error ? " (error: " + c.error + ")" : "")]),
          el("span", { "class": "note" }, [" " + show(c.prompt_tokens) + " prompt + " + show(c.completion_tokens) + " reply tokens"]),
          el("details", {}, [el("summary", {}, ["the prompt"]), el("pre", {}, [said])]),
          el("pre", { "class": "reply" }, [show(c.reply)]),
        ]));
      });
      box.appendChild(list);
    }
  }

  // The model calls the actor made for this move (its k-th turn), when the page keeps them.
  function modelCalls(actor) {
    var seat = record.seats && record.seats[actor];
    if (!seat || !seat.calls) { return []; }
    var k = 0;
    for (var i = 1; i <= current; i++) { if (frames[i].actor === actor) { k += 1; } }
    return seat.calls.filter(function (c) { return String(c.turn) === String(k); });
  }

  function stepEvents() {
    var start = current > 0 ? frames[current - 1].events : 0;
    var end = frames[current].events;
    var list = [];
    for (var i = start; i < end && i < events.length; i++) { list.push([i, events[i]]); }
    return list;
  }

  function drawEvents() {
    var box = $("events");
    clear(box);
    var messages = $("messages");
    clear(messages);
    var shown = 0;
    stepEvents().forEach(function (item) {
      var e = item[1];
      if (e.kind === "observe") { return; }
      if (e.kind === "message") {
        var to = e.audience.filter(function (a) { return a !== e.actor; });
        var parts = [el("b", {}, [e.actor + " \u2192 " + (to.length ? to.join(", ") : "(said now, heard by the others when the moves are revealed)")]), ": ", e.note || ""];
        var div = el("div", { "class": "msg" }, parts);
        if (e.claims) {
          var read = e.claims.facts.map(factText).join("; ") || "no fact";
          div.appendChild(el("div", { "class": "evidence" }, ["read as: " + read + (e.claims.unread.length ? " (unread: " + e.claims.unread.join("; ") + ")" : "")]));
        }
        messages.appendChild(div);
        return;
      }
      shown += 1;
      var text = e.kind + (e.actor ? " by " + e.actor : "") + (e.note ? ": " + e.note : "");
      var facts = (e.facts || []).map(factText).join("; ");
      box.appendChild(el("li", { "class": "event", value: String(item[0]) }, [text, facts ? el("div", { "class": "note" }, [facts]) : null]));
    });
    if (!shown) { box.appendChild(el("li", { "class": "note" }, ["none"])); }
    if (!messages.firstChild) { messages.appendChild(el("p", { "class": "note" }, ["none this step"])); }
  }

  function drawBeliefs(frame) {
    var box = $("beliefs");
    clear(box);
    var rows = beliefs.filter(function (b) { return b.round === frame.round && (frame.actor === null || b.agent === frame.actor); });
    if (!rows.length) { box.appendChild(el("p", { "class": "note" }, ["none this step"])); return; }
    var head = el("tr", {}, ["agent", "facts", "true", "accuracy", "recall of the oracle's"].map(function (h) { return el("th", {}, [h]); }));
    box.appendChild(el("table", {}, [head].concat(rows.map(function (b) {
      return el("tr", {}, [b.agent, b.facts, b["true"], b.accuracy === null ? "-" : (100 * b.accuracy).toFixed(0) + "%", (100 * (b.recall || 0)).toFixed(0) + "%"].map(function (c) { return el("td", {}, [show(c)]); }));
    }))));
  }

  function drawProbes(frame) {
    var box = $("probes");
    clear(box);
    var asked = probes.filter(function (p) { return p.round === frame.round && (frame.actor === null || p.asked === frame.actor); });
    if (!asked.length) { box.appendChild(el("p", { "class": "note" }, ["none this step"])); return; }
    asked.forEach(function (p) {
      var verdict = p.correct === true ? "right" : p.correct === false ? "wrong" : "";
      var div = el("div", { "class": "probe" + (verdict ? " probe-" + verdict : "") }, [
        el("div", { "class": "q" }, [p.level + ", " + p.asked + ": " + p.question]),
        el("div", {}, ["true answer: " + show(p.truth) + (p.false_belief ? " (a false belief)" : "") + "; reply: " + show(p.reply) + " \u2192 ", el("span", { "class": verdict }, [verdict || "unanswered"])]),
      ]);
      (p.evidence || []).forEach(function (ev) {
        var because = ev.because ? " because of " + ev.because.kind + (ev.because.actor ? " by " + ev.because.actor : "") + " in round " + ev.because.round + " (event " + ev.because.event + ")" : "";
        div.appendChild(el("div", { "class": "evidence" }, [ev.agent + " knows " + ev.fact.join(" ") + " = " + show(ev.value) + because]));
      });
      box.appendChild(div);
    });
  }

  function render() {
    var frame = frames[current];
    $("slider").value = String(current);
    $("where").textContent = "step " + current + " of " + last + ", round " + frame.round + (frame.actor ? ", after " + frame.actor + "'s move" : frame.hidden ? ", after an unseen move" : ", the start");
    $("text").textContent = frame.text || "";
    drawScene(frame);
    drawMove(frame);
    drawEvents();
    drawBeliefs(frame);
    drawProbes(frame);
  }

  function go(step) {
    current = Math.max(0, Math.min(last, step));
    render();
  }

  function play() {
    if (timer !== null) { stop(); return; }
    if (current >= last) { go(0); }
    $("play").textContent = "Pause";
    timer = setInterval(function () {
      if (current >= last) { stop(); return; }
      go(current + 1);
    }, 700);
  }

  function stop() {
    if (timer !== null) { clearInterval(timer); }
    timer = null;
    $("play").textContent = "Play";
  }

  function summary() {
    var m = record.metrics || {};
    var keys = Object.keys(m).filter(function (k) { return typeof m[k] !== "object"; }).slice(0, 10);
    return keys.map(function (k) { return k + " " + (typeof m[k] === "number" && !Number.isInteger(m[k]) ? m[k].toFixed(3) : show(m[k])); }).join(" \u00b7 ");
  }

  var view = page.view || { name: "analyst", label: "" };
  $("view").textContent = view.label;
  if (view.name !== "analyst") { $("text-title").textContent = view.name === "common" ? "What every seat saw last" : "What " + view.name + " saw last"; }
  $("title").textContent = page.title;
  document.title = page.title;
  $("summary").textContent = summary();
  $("slider").max = String(last);
  $("slider").addEventListener("input", function () { stop(); go(parseInt($("slider").value, 10)); });
  $("prev").addEventListener("click", function () { stop(); go(current - 1); });
  $("next").addEventListener("click", function () { stop(); go(current + 1); });
  $("play").addEventListener("click", play);
  $("secrets").addEventListener("change", render);
  var secret = frames.some(function (f) { return f.scene && f.scene.secret; });
  $("secret-toggle").hidden = !secret;
  var drawn = frames.some(function (f) { return f.scene && Object.keys(f.scene).length > 0; });
  $("text-box").open = !drawn || typeof window.MASE_DRAW !== "function";

  var hash = window.location.hash;
  var at = /step=(\d+)/.exec(hash);
  // the analyst's page opens with its secrets shown (#nosecrets: as the table looked to players)
  $("secrets").checked = /(^|[#&])secrets/.test(hash) || (view.name === "analyst" && !/nosecrets/.test(hash));
  go(at ? parseInt(at[1], 10) : 0);

  // #selftest: step through the page as a user would and write what happened into the DOM.
  if (/selftest/.test(hash)) {
    var result = { steps: last, errors: window.MASE_ERRORS };
    var slider = $("slider");
    var before = $("scene").innerHTML;
    slider.value = String(last);
    slider.dispatchEvent(new Event("input"));
    result.slider_moved = current === last && $("where").textContent.indexOf("step " + last) === 0;
    result.scene_changed = last > 0 && $("scene").innerHTML !== before;
    result.drawn_by_task = typeof window.MASE_DRAW === "function";
    result.scene_elements = $("scene").querySelectorAll("*").length;
    go(0);
    $("play").click();
    result.playing = $("play").textContent === "Pause";
    setTimeout(function () {
      result.played_to = current;
      stop();
      var out = $("selftest-result");
      out.textContent = JSON.stringify(result);
      out.hidden = false;
    }, 1600);
  }
})();
