// Multiagent debate in the replay viewer: the question and its truth, then each agent's
// answer by round (right or wrong), its reply on demand, and the final answer.
// The truth, what was right and the round being answered are the scene's secret part.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var el = options.el;
  var secret = options.secrets && scene.secret;
  scene = Object.assign({}, scene, secret || {});
  function text(v) { return v === null || v === undefined ? "-" : typeof v === "string" ? v : JSON.stringify(v); }
  element.appendChild(el("h3", {}, ["Question " + scene.id + " (round " + (scene.round + 1) + " of " + scene.rounds + ")"]));
  element.appendChild(el("pre", { "class": "question" }, [scene.question]));
  if (secret) { element.appendChild(el("p", {}, ["truth: ", el("b", {}, [text(scene.truth)])])); }
  var head = el("tr", {}, [el("th", {}, ["agent"])].concat(scene.answers.map(function (_, r) {
    return el("th", {}, ["round " + (r + 1)]);
  })));
  var rows = scene.agents.map(function (agent) {
    return el("tr", { "data-agent": agent }, [el("th", {}, [agent])].concat(scene.answers.map(function (row, r) {
      var reply = scene.replies[r][agent];
      var answer = row[agent];
      var cls = reply === null ? "note" : !secret ? "" : scene.right[r][agent] ? "right" : "wrong";
      var cell = el("td", { "class": "answer" }, [el("span", { "class": cls }, [reply === null ? "(not yet)" : text(answer)])]);
      if (reply) {
        cell.appendChild(el("details", {}, [el("summary", {}, ["reply"]), el("pre", {}, [reply])]));
      }
      return cell;
    })));
  });
  element.appendChild(el("table", { "class": "debate" }, [head].concat(rows)));
  scene.summaries.forEach(function (s, r) {
    element.appendChild(el("details", {}, [el("summary", {}, ["summary of round " + (r + 1)]), el("pre", {}, [s])]));
  });
  if (scene.final !== null) {
    var verdict = !secret ? "" : scene.final_right ? " (right)" : " (wrong)";
    element.appendChild(el("p", {}, ["final answer: ", el("span", { "class": !secret ? "" : scene.final_right ? "right" : "wrong" },
      [scene.final + verdict])]));
  }
};
