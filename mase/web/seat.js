// A person's seat: the page draws the state the server sends for this seat and nothing else,
// and sends the person's moves back. The task's drawing is its replay.js (window.MASE_DRAW), as
// in the replay viewer. window.MASE_SEAT keeps the page's timings for the latency benchmark.
(function () {
  "use strict";

  var el = window.MASE_EL;
  var token = decodeURIComponent(window.location.pathname.split("/").pop());
  var socket = null;
  var state = null;
  var clockTimer = null;
  var rejoins = 0;
  var seat = window.MASE_SEAT = { states: 0, clicks: [], shown: [], closed: null, notices: [] };

  function $(id) { return document.getElementById(id); }
  function clear(node) { while (node.firstChild) { node.removeChild(node.firstChild); } }

  function notice(text, kind) {
    var box = $("notice");
    box.textContent = text;
    box.className = kind === "refused" ? "" : "info";
    box.setAttribute("data-kind", kind);
    box.hidden = false;
    seat.notices.push([kind, text]);
  }

  function send(text) {
    if (!socket || socket.readyState !== 1 || !state) { notice("Not connected: wait a moment.", "refused"); return; }
    seat.clicks.push([state.seq, performance.now()]);
    socket.send(JSON.stringify({ type: "move", text: text, seq: state.seq }));
  }

  function withMessage(move) {
    var words = $("reply").value.trim();
    if (!words || !state.turn.messages) { return move; }
    $("reply").value = "";
    return move + "\nMessage to Team: " + words;
  }

  function drawMoves() {
    var box = $("moves");
    clear(box);
    var turn = state.turn;
    if (state.over || !turn.you) {
      box.appendChild(el("span", { "class": "none" }, [state.over ? "The game is over." : "Not your turn."]));
    } else if (turn.speech) {
      box.appendChild(el("span", { "class": "none" }, ["Say something below, then Send (an empty reply is silence)."]));
    } else {
      state.legal.forEach(function (move, i) {
        var button = el("button", { type: "button", "data-move": move, "data-index": String(i) }, [move]);
        button.addEventListener("click", function () { send(withMessage(move)); });
        box.appendChild(button);
      });
    }
    var speaking = turn.you && turn.speech;
    $("reply-label").textContent = state.over ? "The game is over." : speaking ? "Your words" : turn.messages ? "Message to your team (goes with your next move), or type a move and Send" : "Type a move and Send";
    $("send").disabled = state.over || !turn.you;
  }

  function drawScene() {
    var box = $("scene");
    clear(box);
    var scene = state.scene || {};
    var options = { secrets: false, step: state.seq, frame: { round: state.turn.round }, el: el };
    box.hidden = false;
    if (Object.keys(scene).length && typeof window.MASE_DRAW === "function") {
      window.MASE_DRAW(scene, box, options);
    } else if (Object.keys(scene).length) {
      box.appendChild(el("table", {}, Object.keys(scene).map(function (k) {
        return el("tr", {}, [el("th", {}, [k]), el("td", {}, [JSON.stringify(scene[k])])]);
      })));
    } else {
      box.hidden = true;
    }
  }

  function drawEvents() {
    var list = $("events");
    var messages = $("messages");
    clear(list);
    clear(messages);
    state.events.slice().reverse().forEach(function (e) {  // newest first
      if (e.kind === "message") {
        var to = e.audience.filter(function (a) { return a !== e.actor; });
        messages.appendChild(el("div", { "class": "msg" }, [el("b", {}, [e.actor + (to.length ? " \u2192 " + to.join(", ") : "")]), ": ", e.note || ""]));
        return;
      }
      var facts = (e.facts || []).map(function (pair) { return pair[0].join(" ") + " = " + (typeof pair[1] === "string" ? pair[1] : JSON.stringify(pair[1])); }).join("; ");
      list.appendChild(el("li", { "class": "event" }, ["round " + e.round + ": " + e.kind + (e.actor ? " by " + e.actor : "") + (e.note ? ": " + e.note : ""), facts ? el("div", { "class": "note" }, [facts]) : null]));
    });
    if (!messages.firstChild) { messages.appendChild(el("p", { "class": "note" }, ["none yet"])); }
  }

  function drawClock() {
    if (clockTimer !== null) { clearInterval(clockTimer); clockTimer = null; }
    $("clock").textContent = "";
    if (!state.time_limit || state.over || !state.turn.you) { return; }
    var ends = performance.now() + 1000 * state.time_limit;
    var tick = function () { $("clock").textContent = Math.max(0, Math.ceil((ends - performance.now()) / 1000)) + " s left"; };
    tick();
    clockTimer = setInterval(tick, 250);
  }

  function render(next) {
    var before = state;
    state = next;
    seat.states += 1;
    document.body.setAttribute("data-seq", String(state.seq));
    var game = state.game || {};
    var episode = game.episode === null || game.episode === undefined ? "" : ", game " + (game.episode + 1) + " of " + game.episodes;
    $("summary").textContent = game.task + ": seat " + state.seat + episode + ", round " + state.turn.round;
    var turn = $("turn");
    if (state.over) {
      turn.textContent = "Game over" + (state.reward !== undefined ? ": your reward " + state.reward : "");
    } else if (state.waiting) {
      turn.textContent = "Waiting for the game to start";
    } else {
      var phase = state.turn.phase && state.turn.phase !== "turn" ? " (" + state.turn.phase + ")" : "";
      turn.textContent = (state.turn.you ? "Your turn" : "Waiting for the other seats") + phase;
    }
    turn.className = state.turn && state.turn.you && !state.over ? "yours" : "";
    turn.setAttribute("data-you", String(Boolean(state.turn && state.turn.you && !state.over)));
    if (state.text !== undefined) {
      $("obs").textContent = state.text;
      $("rules").textContent = state.rules || "";
      drawScene();
      drawEvents();
      drawMoves();
      drawClock();
    }
    if (before && before.seq !== state.seq && !$("notice").hidden && $("notice").getAttribute("data-kind") === "refused") {
      $("notice").hidden = true;
    }
    var seq = state.seq;
    window.requestAnimationFrame(function () { seat.shown.push([seq, performance.now(), Boolean(state.turn && state.turn.you)]); });
  }

  var REASONS = {
    1008: "The page fell behind the game; reload it.",
    1009: "That was too large to send; the connection was closed.",
    4404: "This link is no seat of this server (a wrong or old token).",
    4409: "This seat is open in another tab: close that one, then reload this page.",
  };

  function connect() {
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    socket = seat.socket = new WebSocket(scheme + window.location.host + "/ws/" + encodeURIComponent(token));
    $("connection").textContent = "connecting";
    socket.onopen = function () { rejoins = 0; $("connection").textContent = "connected"; };
    socket.onmessage = function (event) {
      var message = JSON.parse(event.data);
      if (message.type === "state") { render(message); }
      else if (message.type === "refused" || message.type === "notice") { notice(message.text, message.type); }
      else if (message.type === "finished") {
        document.body.setAttribute("data-finished", "true");
        if (message.error) { notice(message.error, "refused"); }
      }
    };
    socket.onclose = function (event) {
      seat.closed = event.code;
      var reason = REASONS[event.code] || event.reason;
      if (event.code === 4404 || event.code === 4409) {
        $("connection").textContent = "closed";
        $("turn").textContent = reason;
        notice(reason, "refused");
        return;
      }
      if (reason) { notice(reason, "refused"); }
      rejoins += 1;
      $("connection").textContent = "disconnected; rejoining";
      setTimeout(connect, Math.min(5000, 250 * rejoins));
    };
  }

  $("reply-form").addEventListener("submit", function (event) {
    event.preventDefault();
    if (!state || !state.turn.you) { notice("It is not your turn.", "refused"); return; }
    var text = $("reply").value;
    $("reply").value = "";
    send(text);
  });
  connect();
})();
