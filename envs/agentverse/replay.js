// AgentVerse in the replay viewer: the problem, then each iteration's four stages as far as
// they went: the experts recruited, the proposals and reviews of the decision-making, the
// decision (and, in a wrapped task, the actions executed), and the evaluation's verdict.
// The stages only the experts saw (and the inner task) are the scene's secret part.
window.MASE_DRAW = function (scene, element, options) {
  "use strict";
  var el = options.el;
  scene = Object.assign({}, scene, (options.secrets && scene.secret) || {});
  element.appendChild(el("h3", {}, [scene.problem + " (" + scene.structure + ")" + (scene.phase ? "; stage: " + scene.phase : "; finished")]));
  if (scene.prompt) {
    element.appendChild(el("details", {}, [el("summary", {}, ["the problem"]), el("pre", {}, [scene.prompt])]));
  }
  scene.iterations.forEach(function (it, k) {
    var box = el("div", { "class": "iteration", "data-iteration": k + 1 }, [el("h3", {}, ["Iteration " + (k + 1)])]);
    it = Object.assign({ roles: {}, proposals: [], reviews: [], executed: [], decision: null }, it);
    var roles = Object.keys(it.roles);
    if (roles.length) {
      box.appendChild(el("table", { "class": "roles" }, roles.map(function (seat) {
        return el("tr", {}, [el("th", {}, [seat]), el("td", {}, [it.roles[seat]])]);
      })));
    }
    it.proposals.forEach(function (p) {
      box.appendChild(el("div", { "class": "msg" }, [el("b", {}, [p.seat + ": "]), p.text]));
    });
    it.reviews.forEach(function (round, r) {
      Object.keys(round).forEach(function (seat) {
        var v = round[seat];
        box.appendChild(el("div", { "class": "msg" }, [el("b", {}, [seat + " (review " + (r + 1) + ", "]),
          el("span", { "class": v.accepted ? "right" : "wrong" }, [v.accepted ? "agrees" : "objects"]), "): " + v.text]));
      });
    });
    if (it.executed.length) {
      box.appendChild(el("ol", { "class": "executed" }, it.executed.map(function (e) {
        return el("li", { "class": e.valid ? "" : "invalid" }, [e.seat + " for " + e.agent + ": " + e.action + (e.valid ? "" : " (invalid)")]);
      })));
    }
    if (it.decision !== null) {
      box.appendChild(el("p", {}, [el("b", {}, ["decision: "]), el("span", {}, [it.decision])]));
    }
    if (it.score !== undefined && it.score !== null) {
      box.appendChild(el("p", {}, ["score " + it.score.toFixed(2) + ": ", el("span", { "class": it.accepted ? "right" : "wrong" },
        [it.accepted ? "accepted" : "not accepted"]), it.feedback ? " \u2014 " + it.feedback : ""]));
    }
    element.appendChild(box);
  });
  if (scene.inner) {
    element.appendChild(el("h3", {}, ["The task being solved"]));
    element.appendChild(el("pre", {}, [scene.inner]));
  }
};
