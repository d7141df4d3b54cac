// The DOM helper that the replay viewer, the web seat's page and the tasks' drawings share
// (a task's draw gets it as options.el): an element with text children only, never HTML from
// a record or a server (model text is data).
window.MASE_EL = function (tag, attrs, children) {
  "use strict";
  var node = document.createElement(tag);
  Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
  (children || []).forEach(function (c) {
    if (c === null || c === undefined) { return; }
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  });
  return node;
};
