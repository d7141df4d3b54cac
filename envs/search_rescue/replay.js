// Search and rescue in the replay viewer: rooms on a ring joined by their doors, each bomb
// with its colour sequence (cut phases crossed out), and the agents with their cutters.
// Agents, bombs and the score are the scene's secret part: the common view has only the map.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var hidden = (options.secrets && scene.secret) || {};
  scene = Object.assign({ agents: [], bombs: [] }, scene, hidden);
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = { red: "#d62828", green: "#2a9d3f", blue: "#2563eb", yellow: "#e9c400",
    purple: "#8b3fd1", orange: "#f07f13", white: "#f4f4f4", black: "#222" };
  var AGENTS = ["#264653", "#e76f51", "#8a5a00", "#6d597a", "#2a9d8f", "#9c6644", "#577590", "#b5179e"];
  function svg(tag, attrs, text) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = String(text); }
    return node;
  }
  var W = 760, H = 560, cx = W / 2, cy = H / 2 + 20, R = 190, r = 70;
  var root = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "sar", role: "img" });
  var where = {};
  scene.rooms.forEach(function (room, i) {
    var angle = -Math.PI / 2 + 2 * Math.PI * i / scene.rooms.length;
    where[room] = [cx + R * Math.cos(angle), cy + R * Math.sin(angle)];
  });
  root.appendChild(svg("text", { x: 10, y: 22, "font-size": 16, "font-weight": 600 },
    (scene.score === undefined ? "" : "score " + scene.score + " / " + scene.max_score + "   ") +
    (scene.to_act ? scene.to_act + " to act in round " + scene.round + " of " + scene.max_rounds : "the episode is over")));
  scene.edges.forEach(function (e) {
    var a = where[e[0]], b = where[e[1]];
    root.appendChild(svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: "#9aa5b8", "stroke-width": 6, "class": "door" }));
  });
  var bombs = {};
  scene.bombs.forEach(function (b) { bombs[b.room] = b; });
  scene.rooms.forEach(function (room) {
    var p = where[room];
    var g = svg("g", { "class": "room", "data-room": room });
    g.appendChild(svg("circle", { cx: p[0], cy: p[1], r: r, fill: "#fdfdfd", stroke: "#4a5568", "stroke-width": 2 }));
    g.appendChild(svg("text", { x: p[0], y: p[1] - r + 18, "text-anchor": "middle", "font-size": 14, "font-weight": 600 }, "Room " + room));
    var b = bombs[room];
    if (b) {
      var label = "bomb " + b.id + " " + b.status;
      g.appendChild(svg("text", { x: p[0], y: p[1] - 22, "text-anchor": "middle", "font-size": 12,
        fill: b.status === "exploded" ? "#b3261e" : b.status === "defused" ? "#17702b" : "#333", "class": "bomb-status" }, label));
      var size = 18, x0 = p[0] - b.sequence.length * (size + 4) / 2;
      b.sequence.forEach(function (colour, k) {
        var x = x0 + k * (size + 4);
        var cell = svg("rect", { x: x, y: p[1] - 14, width: size, height: size, rx: 3, fill: COLOURS[colour] || "#999",
          stroke: "#333", opacity: k < b.cut || b.status === "exploded" ? 0.3 : 1, "class": "phase" });
        cell.appendChild(svg("title", {}, "phase " + (k + 1) + ": " + colour + (k < b.cut ? " (cut)" : "")));
        g.appendChild(cell);
        if (k < b.cut) {
          g.appendChild(svg("line", { x1: x, y1: p[1] - 14, x2: x + size, y2: p[1] + 4, stroke: "#111", "stroke-width": 2 }));
        }
      });
    }
    root.appendChild(g);
  });
  var count = {};
  scene.agents.forEach(function (a, i) {
    var p = where[a.room];
    var k = count[a.room] || 0;
    count[a.room] = k + 1;
    var x = p[0] - 36 + k * 36, y = p[1] + 30;
    var g = svg("g", { "class": "agent", "data-agent": a.name });
    g.appendChild(svg("circle", { cx: x, cy: y, r: 13, fill: AGENTS[i % AGENTS.length],
      stroke: a.name === scene.to_act ? "#f4a300" : "#fff", "stroke-width": a.name === scene.to_act ? 4 : 2 }));
    g.appendChild(svg("text", { x: x, y: y + 5, "text-anchor": "middle", "font-size": 13, fill: "#fff", "font-weight": 700 }, a.name[0].toUpperCase()));
    a.cutters.forEach(function (c, j) {
      g.appendChild(svg("rect", { x: x - 10 + j * 10, y: y + 16, width: 8, height: 8, fill: COLOURS[c] || "#999", stroke: "#333" }));
    });
    g.appendChild(svg("title", {}, a.name + " in room " + a.room + ", cutters: " + a.cutters.join(", ")));
    root.appendChild(g);
  });
  element.appendChild(root);
  var legend = scene.agents.map(function (a) { return a.name + " (" + a.cutters.join(", ") + ") in room " + a.room; }).join(" \u00b7 ");
  element.appendChild(options.el("p", { "class": "note" }, [legend]));
};
