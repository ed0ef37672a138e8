// kreview workbench: the only script on its pages (served from the workbench itself; no inline script).
document.addEventListener("click", function (event) {
  var button = event.target.closest("button.copy");
  if (!button) return;
  var text = button.getAttribute("data-copy") || "";
  var done = function () { button.textContent = "copied"; setTimeout(function () { button.textContent = "copy"; }, 1500); };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, function () { fallback(text); done(); });
  } else { fallback(text); done(); }
});
function fallback(text) {
  var area = document.createElement("textarea");
  area.value = text; document.body.appendChild(area); area.select();
  try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
  document.body.removeChild(area);
}
