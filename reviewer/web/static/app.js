// kreview workbench: the only script on its pages (served from the workbench itself; no inline script).
// Copy buttons, the draft's preview (rendered on the server), the sign-off's busy state, and opening the
// collapsed section a link points into.
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

// a link to #ev-… or #crit-… inside a collapsed <details> opens it
function openTarget() {
  var id = decodeURIComponent(location.hash.slice(1));
  var node = id && document.getElementById(id);
  for (; node; node = node.parentElement) { if (node.tagName === "DETAILS") node.open = true; }
  if (id && document.getElementById(id)) document.getElementById(id).scrollIntoView();
}
window.addEventListener("hashchange", openTarget);
document.addEventListener("DOMContentLoaded", openTarget);

// the draft's preview: the server renders the Markdown (raw HTML off) a moment after typing stops
document.addEventListener("DOMContentLoaded", function () {
  var draft = document.getElementById("draft");
  var pane = document.getElementById("preview");
  var state = document.getElementById("preview-state");
  if (!draft || !pane || !draft.form) return;
  var timer = null, seq = 0;
  draft.addEventListener("input", function () {
    clearTimeout(timer);
    state.textContent = "updating…";
    timer = setTimeout(function () {
      var mine = ++seq;
      var body = new FormData();
      body.append("csrf", draft.form.elements["csrf"].value);
      body.append("draft", draft.value);
      fetch(draft.getAttribute("data-preview"), { method: "POST", body: body, credentials: "same-origin" })
        .then(function (r) { return r.text().then(function (t) { return [r.ok, r.status, t]; }); })
        .then(function (res) {
          if (mine !== seq) return;
          if (res[0]) { pane.innerHTML = res[2]; state.textContent = "rendered by the workbench"; }
          else { state.textContent = "preview failed (" + res[1] + ")"; }
        }, function () { if (mine === seq) state.textContent = "preview failed (no answer)"; });
    }, 300);
  });
});

// signing resumes the run's checkpoint (seconds): say so, and take no second click meanwhile
document.addEventListener("submit", function (event) {
  var form = event.target;
  if (form.id !== "signoff-form") return;
  if (form.getAttribute("aria-busy") === "true") { event.preventDefault(); return; }
  var submitter = event.submitter;
  if (submitter && submitter.name) {  // a disabled button is left out of the form's data: carry its value
    var keep = document.createElement("input");
    keep.type = "hidden"; keep.name = submitter.name; keep.value = submitter.value;
    form.appendChild(keep);
  }
  form.setAttribute("aria-busy", "true");
  form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
  if (submitter) submitter.textContent = submitter.value === "reject" ? "Rejecting…" : "Signing…";
  var note = document.getElementById("signing");
  if (note) note.textContent = "signing: resuming the run's checkpoint, this can take a few seconds";
});
// a page restored from the back/forward cache gets its buttons back
window.addEventListener("pageshow", function (event) {
  if (!event.persisted) return;
  var form = document.getElementById("signoff-form");
  if (!form) return;
  form.removeAttribute("aria-busy");
  form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = false; });
  var a = document.getElementById("approve"), r = document.getElementById("reject");
  if (a) a.textContent = "Approve"; if (r) r.textContent = "Reject";
  form.querySelectorAll("input[type=hidden][name=decision]").forEach(function (i) { i.remove(); });
});
