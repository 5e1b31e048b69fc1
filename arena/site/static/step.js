// Step through a replay one day or night at a time (the chapters review.js draws for the chosen view).
(function () {
  "use strict";
  var story = document.getElementById("story");
  var at = 0;
  var all = document.getElementById("step-all");
  var label = document.getElementById("step-at");
  var buttons = {
    first: document.getElementById("step-first"),
    prev: document.getElementById("step-prev"),
    next: document.getElementById("step-next"),
    last: document.getElementById("step-last")
  };
  function chapters() { return story.querySelectorAll("section.chapter"); }
  function apply() {
    var list = chapters();
    if (!list.length) { label.textContent = "nothing to show"; return; }
    at = Math.max(0, Math.min(at, list.length - 1));
    for (var i = 0; i < list.length; i++) list[i].hidden = !all.checked && i !== at;
    var title = list[at].querySelector("h3");
    label.textContent = all.checked ? "all " + list.length : (title ? title.textContent : "") + " (" + (at + 1) + "/" + list.length + ")";
    buttons.first.disabled = buttons.prev.disabled = all.checked || at === 0;
    buttons.next.disabled = buttons.last.disabled = all.checked || at === list.length - 1;
  }
  function go(to) { at = to; all.checked = false; apply(); }
  buttons.first.addEventListener("click", function () { go(0); });
  buttons.prev.addEventListener("click", function () { go(at - 1); });
  buttons.next.addEventListener("click", function () { go(at + 1); });
  buttons.last.addEventListener("click", function () { go(chapters().length - 1); });
  all.addEventListener("change", apply);
  document.addEventListener("keydown", function (e) {
    if (e.target && (e.target.tagName === "SELECT" || e.target.tagName === "INPUT")) return;
    if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(chapters().length - 1);
  });
  document.getElementById("side").addEventListener("click", function (e) {  // the days-and-nights links step too
    var link = e.target.closest ? e.target.closest("nav.chapters a") : null;
    if (!link) return;
    var list = chapters();
    for (var i = 0; i < list.length; i++) if ("#" + list[i].id === link.getAttribute("href")) { go(i); break; }
  });
  new MutationObserver(apply).observe(story, { childList: true });  // a new view keeps the step
  apply();
})();
