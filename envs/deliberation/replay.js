// Deliberation in the replay viewer: the proposal on the table, the optimum it is scored
// against (the integer program's), the dialogue so far, and the decision's normalized reward.
// The optimum and the normalized reward (from every seat's private values) are the secret part.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var el = options.el;
  var secret = options.secrets && scene.secret;
  scene = Object.assign({}, scene, secret || {});
  element.appendChild(el("h3", {}, [scene.task + " " + scene.game + ", round " + scene.round + " of " + scene.round_limit]));
  var table = el("table", { "class": "deliberation" }, [
    el("tr", {}, [el("th", {}, ["on the table"]), el("td", {}, [scene.proposal || "no proposal yet"])]),
  ]);
  if (secret) {
    table.appendChild(el("tr", {}, [el("th", {}, ["optimum"]), el("td", {}, [scene.optimum_decision + " (" + scene.optimum.toFixed(2) + ")"])]));
  }
  if (scene.ended_by) {
    table.appendChild(el("tr", {}, [el("th", {}, ["decision"]), el("td", {}, secret ? [
      el("span", { "class": scene.nr >= 99.95 ? "right" : "wrong" }, ["NR " + (scene.nr === null ? "-" : scene.nr.toFixed(1))]),
      " (" + scene.ended_by + ")"] : [scene.ended_by])]));
  }
  element.appendChild(table);
  var list = el("ol", { "class": "dialogue" }, scene.dialogue.map(function (d) {
    return el("li", {}, [el("b", {}, ["[" + d.round + "] " + d.who + ": "]), d.said]);
  }));
  element.appendChild(el("h3", {}, ["Dialogue"]));
  element.appendChild(scene.dialogue.length ? list : el("p", { "class": "note" }, ["nothing said yet"]));
};
