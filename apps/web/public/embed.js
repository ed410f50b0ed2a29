/*
 * ClinSign embedded forms: include this script on the page that frames a form.
 *
 *   <iframe src="EMBED_URL" data-clinsign-form title="Patient form" style="width:100%;border:0"></iframe>
 *   <script src="https://YOUR-CLINSIGN-HOST/embed.js" async></script>
 *
 * It sizes each form's iframe to its content, taller and shorter (a long form, then the thank-you
 * card), and turns the form's messages into DOM events on the iframe (they bubble): clinsign:ready, clinsign:resized {height}, clinsign:draftSaved
 * {savedAt}, clinsign:submitted {submissionId}, clinsign:closed, clinsign:error {code}. Messages
 * are taken only from this script's own origin and only from a form iframe of this page; they
 * never carry an answer or a credential. ClinSignForms.setLanguage(iframe, "de" | "en") switches
 * a form's page texts.
 */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !script.src) return;
  var formOrigin = new URL(script.src).origin;
  var FIELDS = ["type", "height", "savedAt", "submissionId", "code"];

  function formFrames() {
    return Array.prototype.filter.call(document.querySelectorAll("iframe[data-clinsign-form]"), function (frame) {
      try {
        return new URL(frame.src, window.location.href).origin === formOrigin;
      } catch {
        return false;
      }
    });
  }

  window.addEventListener("message", function (event) {
    if (event.origin !== formOrigin) return;
    var data = event.data;
    if (!data || data.source !== "clinsign-form" || typeof data.type !== "string") return;
    var frame = formFrames().filter(function (f) {
      return f.contentWindow === event.source;
    })[0];
    if (!frame) return;
    if (data.type === "resized" && typeof data.height === "number" && isFinite(data.height)) {
      frame.style.height = Math.max(120, Math.min(Math.ceil(data.height), 50000)) + "px";
    }
    var detail = {};
    FIELDS.forEach(function (name) {
      if (data[name] !== undefined) detail[name] = data[name];
    });
    frame.dispatchEvent(new CustomEvent("clinsign:" + data.type, { detail: detail, bubbles: true }));
  });

  window.ClinSignForms = {
    setLanguage: function (frame, lang) {
      if (frame && frame.contentWindow)
        frame.contentWindow.postMessage({ source: "clinsign-host", type: "setLanguage", lang: lang }, formOrigin);
    },
  };
})();
