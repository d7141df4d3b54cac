// The crafting world in the replay viewer: who is where holding what, and the goal's recipe
// tree with the items the team holds marked, so a step shows how far the plan has come.
// Agents, inventories and hand-overs are the scene's secret part: not in the common view.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var el = options.el;
  scene = Object.assign({ agents: [], transfers: [] }, scene, (options.secrets && scene.secret) || {});
  var held = {};
  scene.agents.forEach(function (a) {
    Object.keys(a.inventory).forEach(function (item) { held[item] = (held[item] || 0) + a.inventory[item]; });
  });
  element.appendChild(el("h3", {}, ["Goal: " + scene.goal + (scene.made_in ? " (made in round " + scene.made_in + ")" : "") +
    "; round " + scene.round + " of " + scene.max_rounds + (scene.to_act ? "; " + scene.to_act + " to act" : "")]));
  var head = el("tr", {}, ["agent", "place", "inventory"].map(function (h) { return el("th", {}, [h]); }));
  var rows = scene.agents.map(function (a) {
    var inv = Object.keys(a.inventory).map(function (k) { return k + " \u00d7" + a.inventory[k]; }).join(", ") || "(nothing)";
    return el("tr", { "data-agent": a.name, "class": a.name === scene.to_act ? "acting" : "" },
      [el("th", {}, [a.name + (a.name === scene.to_act ? " \u25B6" : "")]), el("td", {}, [a.place]), el("td", {}, [inv])]);
  });
  if (rows.length) { element.appendChild(el("table", { "class": "inventories" }, [head].concat(rows))); }
  element.appendChild(el("h3", {}, ["Recipe tree"]));
  function node(item, depth) {
    var r = scene.recipes[item] || {};
    var how = r.inputs ? "craft " + r.count + " from " + r.inputs.map(function (p) { return p[1] + " " + p[0]; }).join(" + ") +
      (r.station ? " at the " + r.station + (r.at ? " (" + r.at + ")" : "") : "")
      : "gather" + (r.gather ? " at " + r.gather : "") + (r.tool ? " with a " + r.tool : "");
    var have = held[item] || 0;
    var li = el("li", { "data-item": item }, [el("span", { "class": have ? "right" : "" }, [item + (have ? " (held: " + have + ")" : "")]),
      el("span", { "class": "note" }, [" \u2014 " + how])]);
    var children = (r.inputs || []).map(function (p) { return p[0]; });
    if (r.tool) { children.push(r.tool); }
    if (children.length && depth < 8) {
      li.appendChild(el("ul", {}, children.map(function (c) { return node(c, depth + 1); })));
    }
    return li;
  }
  element.appendChild(el("ul", { "class": "recipes" }, [node(scene.goal, 0)]));
  if (scene.transfers.length) {
    var t = scene.transfers[scene.transfers.length - 1];
    element.appendChild(el("p", { "class": "note" }, [scene.transfers.length + " hand-overs; the last: round " + t[0] + ", " + t[1] + " gave " + t[4] + " " + t[3] + " to " + t[2]]));
  }
  element.appendChild(el("p", { "class": "note" }, ["places: " + scene.places.join(", ") + "; paths: " +
    scene.paths.map(function (p) { return p[0] + "\u2013" + p[1]; }).join(", ")]));
};
