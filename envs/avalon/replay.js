// Avalon in the replay viewer: the table (seats, leader, the team on the table, the last
// revealed votes), the quest track and the proposals so far. Roles show only with the toggle.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var NS = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var node = document.createElementNS(NS, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = String(text); }
    return node;
  }
  var W = 760, H = 500, cx = 380, cy = 250, R = 170;
  var root = svg("svg", { viewBox: "0 0 " + W + " " + H, "class": "avalon", role: "img" });
  root.appendChild(svg("ellipse", { cx: cx, cy: cy, rx: 130, ry: 95, fill: "#6b4f2a", stroke: "#3e2c14", "stroke-width": 4 }));
  root.appendChild(svg("text", { x: 10, y: 22, "font-size": 16, "font-weight": 600 },
    "Round " + scene.round + ", quest " + (Math.min(scene.quest, 4) + 1) + ", phase " + scene.phase +
    ", rejections in a row: " + scene.rejections));
  // the quest track on the table
  scene.team_sizes.forEach(function (size, q) {
    var x = cx - 100 + q * 50, y = cy;
    var result = scene.results[q];
    var fill = result === "success" ? "#1f5fbf" : result === "fail" ? "#b3261e" : q === scene.quest ? "#f4e4bc" : "#d9c7a0";
    var g = svg("g", { "class": "quest", "data-quest": q + 1 });
    g.appendChild(svg("circle", { cx: x, cy: y, r: 20, fill: fill, stroke: "#3e2c14", "stroke-width": 2 }));
    g.appendChild(svg("text", { x: x, y: y + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700,
      fill: result ? "#fff" : "#3e2c14" }, size));
    var title = "quest " + (q + 1) + ", team of " + size + (result ? ": " + result + (scene.fails[q] ? " (" + scene.fails[q] + " fail cards)" : "") : "");
    g.appendChild(svg("title", {}, title));
    root.appendChild(g);
  });
  var team = {};
  scene.team.forEach(function (i) { team[i] = true; });
  var secret = options.secrets && scene.secret;
  scene.seats.forEach(function (seat, i) {
    var angle = -Math.PI / 2 + 2 * Math.PI * i / scene.seats.length;
    var x = cx + R * 1.3 * Math.cos(angle), y = cy + R * Math.sin(angle);
    var g = svg("g", { "class": "seat" + (team[i] ? " on-team" : ""), "data-seat": seat });
    var side = secret ? scene.secret.sides[i] : null;
    g.appendChild(svg("rect", { x: x - 98, y: y - 26, width: 196, height: 52, rx: 10,
      fill: side === "evil" ? "#fbe3e1" : side === "good" ? "#e1ecfb" : "#fff",
      stroke: team[i] ? "#f4a300" : "#555", "stroke-width": team[i] ? 4 : 1.5 }));
    g.appendChild(svg("text", { x: x, y: y - 6, "text-anchor": "middle", "font-size": 14, "font-weight": 700 },
      seat + (i === scene.leader ? " \u265B" : "") + (i === scene.lady ? " \u2740" : "")));
    var vote = scene.votes[seat];
    var line = (secret ? scene.secret.roles[i] : "") + (vote ? (secret ? ", " : "") + "last vote: " + vote : "");
    if (line) {
      g.appendChild(svg("text", { x: x, y: y + 14, "text-anchor": "middle", "font-size": 12,
        fill: vote === "reject" ? "#b3261e" : "#333", "class": secret ? "role" : "" }, line));
    }
    g.appendChild(svg("title", {}, seat + (i === scene.leader ? ", leader" : "") + (team[i] ? ", on the team" : "")));
    root.appendChild(g);
  });
  if (scene.winner) {
    root.appendChild(svg("text", { x: cx, y: H - 12, "text-anchor": "middle", "font-size": 18, "font-weight": 700,
      fill: scene.winner === "good" ? "#1f5fbf" : "#b3261e" }, scene.winner + " wins (" + scene.ended_by + ")" +
      (scene.target ? "; the Assassin named " + scene.target : "")));
  }
  element.appendChild(root);
  var el = options.el;
  element.appendChild(el("p", { "class": "note" }, ["\u265B leader, \u2740 Lady of the Lake, gold frame: the team on the table; last vote: the last vote revealed (a vote in progress stays secret until all are cast)" +
    (scene.secret && !options.secrets ? "; roles hidden (tick 'show secrets')" : "")]));
  if (scene.proposals.length) {
    var head = el("tr", {}, ["quest", "leader", "team", "vote"].map(function (h) { return el("th", {}, [h]); }));
    var rows = scene.proposals.map(function (p) {
      var verdict = p.approved === true ? "approved" : p.approved === false ? "rejected" : "voting";
      return el("tr", {}, [String(p.quest + 1), p.leader, p.team.join(", "), verdict].map(function (c) { return el("td", {}, [c]); }));
    });
    element.appendChild(el("table", { "class": "proposals" }, [head].concat(rows)));
  }
};
