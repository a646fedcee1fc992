/* TracePcap web UI: times in the viewer's zone, failed requests shown where they happened,
   uploads with progress, the analysis progress, the label dropdowns and the topology graph.
   Every answer shown comes from the server; nothing here decides one. */
(function () {
  "use strict";

  var PANEL_HEADER = "X-TracePcap-Panel";
  var auth = function () { return window.TracePcapAuth; };

  function authHeaders() {
    var a = auth();
    return a ? a.headers() : {};
  }

  // --- times: absolute in the viewer's zone, and relative -------------------------------
  var absolute = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
    second: "2-digit", timeZoneName: "short"
  });
  var relative = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  var STEPS = [["year", 31536000], ["month", 2592000], ["week", 604800], ["day", 86400],
               ["hour", 3600], ["minute", 60], ["second", 1]];

  function ago(date) {
    var seconds = Math.round((date.getTime() - Date.now()) / 1000);
    if (Math.abs(seconds) < 10) { return "just now"; }
    for (var i = 0; i < STEPS.length; i++) {
      if (Math.abs(seconds) >= STEPS[i][1] || STEPS[i][0] === "second") {
        return relative.format(Math.round(seconds / STEPS[i][1]), STEPS[i][0]);
      }
    }
    return "";
  }

  function formatTimes(root) {
    (root || document).querySelectorAll("time.ts[datetime]").forEach(function (el) {
      var date = new Date(el.getAttribute("datetime"));
      if (isNaN(date.getTime())) { return; }
      el.title = el.getAttribute("datetime");
      el.textContent = absolute.format(date);
      var rel = el.nextElementSibling;
      if (!rel || !rel.classList.contains("ts-rel")) {
        rel = document.createElement("span");
        rel.className = "ts-rel";
        el.after(rel);
      }
      rel.textContent = " (" + ago(date) + ")";
    });
  }
  setInterval(function () { formatTimes(document); }, 30000);

  // --- errors: every failed request says so, in the panel (or on the page) ---------------
  function messageOf(xhr) {
    var text = xhr.responseText || "";
    try {
      var body = JSON.parse(text);
      if (body && body.error && body.error.message) { return body.error.message; }
      if (body && body.detail) { return typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail); }
    } catch (e) { /* not JSON */ }
    if (xhr.status === 0) { return "The server could not be reached."; }
    return "The server answered " + xhr.status + (xhr.statusText ? " " + xhr.statusText : "") +
      (text && text.length < 300 && text.indexOf("<") < 0 ? ": " + text : ".");
  }

  function showError(elt, message) {
    var panel = elt && elt.closest ? elt.closest(".panel") : null;
    var box = panel ? panel.querySelector("[data-panel-error]") : document.getElementById("global-error");
    if (!box) { box = document.getElementById("global-error"); }
    box.textContent = message;
    box.hidden = false;
    if (!panel) { box.scrollIntoView({ block: "nearest" }); }
  }

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var xhr = evt.detail.xhr;
    if (xhr.status < 400) { return; }
    if (xhr.getResponseHeader(PANEL_HEADER)) {
      // the panel as stored, with the server's message: swap it in
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
      return;
    }
    evt.detail.shouldSwap = false;
    if (xhr.status === 401 && auth()) { auth().expired(); }
    showError(evt.detail.elt, messageOf(xhr));
  });
  document.addEventListener("htmx:sendError", function (evt) {
    showError(evt.detail.elt, "The server could not be reached; nothing was saved.");
  });
  document.addEventListener("htmx:timeout", function (evt) {
    showError(evt.detail.elt, "The server did not answer in time.");
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("global-error");
    if (box) { box.hidden = true; }
  });

  // --- a change in one panel reloads the host's other panels (it answered with its own) ----
  // (here, not in an hx-trigger filter: htmx evaluates those as code, which the CSP forbids)
  document.addEventListener("tp-verdicts-changed", function (evt) {
    var changed = evt.detail && evt.detail.question;
    document.querySelectorAll("section.panel[data-question]").forEach(function (panel) {
      if (panel.getAttribute("data-question") !== changed) { window.htmx.trigger(panel, "tp-panel-stale"); }
    });
  });

  // --- label dropdowns ("Other…" reveals a text field) and weight sliders ------------------
  document.addEventListener("change", function (evt) {
    var select = evt.target;
    if (select.matches && select.matches("select[data-other]")) {
      var other = document.getElementById(select.getAttribute("data-other"));
      if (other) {
        other.hidden = select.value !== "__other__";
        if (!other.hidden) { other.querySelector("input").focus(); }
      }
    }
  });
  document.addEventListener("input", function (evt) {
    var input = evt.target;
    if (input.matches && input.matches("input[type=range]")) {
      var out = input.form && input.form.querySelector("output[for='" + input.id + "'][data-weight-out]");
      if (out) { out.textContent = input.value; }
    }
  });

  // --- upload with progress, then the analysis progress -----------------------------------
  function statusText(capture) {
    if (capture.status === "queued") { return "queued"; }
    if (capture.status === "analyzing") {
      return capture.progress >= 100 ? "scanning and adjudicating…" : "reading packets " + capture.progress + "%";
    }
    return capture.status + (capture.error ? ": " + capture.error : "");
  }

  function pollCapture(id, onUpdate, onDone, onError) {
    var timer = null;
    function tick() {
      fetch("/api/captures/" + encodeURIComponent(id), { headers: authHeaders() }).then(function (r) {
        return r.json().then(function (body) { return { ok: r.ok, body: body }; });
      }).then(function (res) {
        if (!res.ok) { onError(res.body && res.body.error ? res.body.error.message : "status unavailable"); return; }
        onUpdate(res.body);
        if (["done", "partial", "failed"].indexOf(res.body.status) >= 0) { onDone(res.body); return; }
        timer = setTimeout(tick, 400);
      }).catch(function () { timer = setTimeout(tick, 1500); });
    }
    tick();
    return function () { clearTimeout(timer); };
  }

  function upload(file, url, list) {
    var row = document.getElementById("upload-row").content.firstElementChild.cloneNode(true);
    row.querySelector(".upload-name").textContent = file.name;
    var up = row.querySelector(".p-upload"), upText = row.querySelector(".p-upload-text");
    var an = row.querySelector(".p-analysis"), anText = row.querySelector(".p-analysis-text");
    var result = row.querySelector(".upload-result");
    up.setAttribute("aria-label", "upload of " + file.name);
    an.setAttribute("aria-label", "analysis of " + file.name);
    list.prepend(row);

    function fail(message) {
      result.className = "upload-result alert alert-error";
      result.setAttribute("role", "alert");
      result.textContent = message;
    }

    var data = new FormData();
    data.append("file", file, file.name);
    var xhr = new XMLHttpRequest();
    xhr.open("POST", url);
    var headers = authHeaders();
    Object.keys(headers).forEach(function (k) { xhr.setRequestHeader(k, headers[k]); });
    xhr.upload.onprogress = function (e) {
      if (e.lengthComputable) {
        var pct = Math.round(100 * e.loaded / e.total);
        up.value = pct;
        upText.textContent = pct + "%";
      }
    };
    xhr.onerror = function () { fail("The upload failed: the server could not be reached."); };
    xhr.onload = function () {
      if (xhr.status >= 400) { fail("The upload was refused: " + messageOf(xhr)); upText.textContent = "refused"; return; }
      up.value = 100;
      upText.textContent = "done";
      var created = JSON.parse(xhr.responseText);
      if (xhr.status === 200) { anText.textContent = "already uploaded"; }
      document.body.dispatchEvent(new CustomEvent("tp-captures-changed"));
      pollCapture(created.id, function (c) {
        an.value = c.progress;
        anText.textContent = statusText(c);
      }, function (c) {
        an.value = c.status === "failed" ? 0 : 100;
        anText.textContent = statusText(c);
        if (c.status === "failed") { fail("The analysis failed: " + (c.error || "no reason given")); }
        else {
          result.className = "upload-result";
          var link = document.createElement("a");
          link.href = "/captures/" + c.id;
          link.textContent = "Open " + c.name;
          result.replaceChildren(link);
        }
        document.body.dispatchEvent(new CustomEvent("tp-captures-changed"));
      }, fail);
    };
    xhr.send(data);
  }

  function takeFiles(zone, files) {
    var list = document.getElementById("uploads");
    var url = zone.getAttribute("data-upload-url");
    Array.prototype.forEach.call(files, function (f) { upload(f, url, list); });
  }

  // delegated from the document, attached once at start: a file chosen the moment the
  // dropzone is swapped in (before htmx's settle ran initUpload) is not lost
  document.addEventListener("change", function (evt) {
    var input = evt.target;
    if (!input || input.id !== "upload-file") { return; }
    var zone = document.getElementById("dropzone");
    if (zone && input.files && input.files.length) { takeFiles(zone, input.files); input.value = ""; }
  });

  function initUpload(root) {
    var zone = (root || document).querySelector("#dropzone:not([data-ready])");
    if (!zone) { return; }
    zone.setAttribute("data-ready", "1");
    function take(files) { takeFiles(zone, files); }
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("dragging"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (e) { if (e.dataTransfer) { take(e.dataTransfer.files); } });
  }

  // a capture page opened while its analysis runs: follow it, then reload the content
  function initAnalysisPoll(root) {
    var box = (root || document).querySelector("[data-poll-capture]:not([data-ready])");
    if (!box) { return; }
    box.setAttribute("data-ready", "1");
    var bar = box.querySelector(".p-analysis"), text = box.querySelector(".p-analysis-text");
    pollCapture(box.getAttribute("data-poll-capture"), function (c) {
      bar.value = c.progress;
      text.textContent = statusText(c);
    }, function () { window.location.reload(); }, function (m) { showError(box, m); });
  }

  // --- topology ---------------------------------------------------------------------------
  var graph = null;
  function loadTopology() {
    var holder = document.getElementById("topology");
    var select = document.getElementById("topology-colour");
    if (!holder || !select || typeof window.cytoscape !== "function") { return; }
    var url = select.getAttribute("data-topology-url") + "?colour_by=" + encodeURIComponent(select.value);
    fetch(url, { headers: authHeaders() }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    }).then(function (res) {
      if (!res.ok) { showError(holder, res.body.error ? res.body.error.message : "topology unavailable"); return; }
      var data = res.body;
      // the page owns the colours: the server gives each node and legend entry a tone
      var palette = holder.getAttribute("data-palette").split(" ");
      var colourOf = function (tone) {
        if (tone === "contested") { return holder.getAttribute("data-contested-colour"); }
        if (tone === "unknown") { return holder.getAttribute("data-unknown-colour"); }
        return palette[tone % palette.length];
      };
      data.nodes.forEach(function (n) { n.data.colour = colourOf(n.data.tone); });
      if (graph) { graph.destroy(); }
      graph = window.cytoscape({
        container: holder,
        elements: data.nodes.concat(data.edges),
        minZoom: 0.05,
        maxZoom: 1.6,
        style: [
          { selector: "node", style: {
            "background-color": "data(colour)", "label": "data(name)", "font-size": 10,
            "color": "#1b1f24", "text-valign": "bottom", "text-margin-y": 3, "width": 18, "height": 18,
            "border-width": 1, "border-color": "#1b1f24" } },
          { selector: "node[?contested]", style: { "border-style": "dashed", "border-width": 2, "border-color": "#b45309" } },
          { selector: "node[?human]", style: { "border-width": 3, "border-color": "#6d28d9" } },
          { selector: "edge", style: { "width": 1, "line-color": "#9aa4b1", "curve-style": "haystack", "opacity": 0.7 } },
          { selector: ":selected", style: { "border-width": 3, "border-color": "#0b57d0" } }
        ],
        layout: data.nodes.length > 150
          ? { name: "concentric", animate: false, padding: 20, concentric: function (n) { return n.degree(); } }
          : { name: "cose", animate: false, padding: 30, randomize: false, nodeDimensionsIncludeLabels: true,
              nodeRepulsion: function () { return 40000; }, idealEdgeLength: function () { return 110; } }
      });
      var hostUrl = select.getAttribute("data-host-url");
      graph.on("tap", "node", function (e) { window.location.href = hostUrl + encodeURIComponent(e.target.id()); });
      var note = document.getElementById("topology-note");
      note.textContent = data.shown + " of " + data.hosts + " hosts" +
        (data.shown < data.hosts ? " (the busiest)" : "") + ", " + data.edges.length +
        " host pairs; colour: " + data.title + " (a dashed ring: contested, a thick purple ring: a human" +
        " answer). Select a node to open the host.";
      var legend = document.getElementById("topology-legend");
      legend.replaceChildren.apply(legend, data.legend.map(function (item) {
        var li = document.createElement("li");
        var swatch = document.createElement("span");
        swatch.className = "swatch";
        swatch.style.background = colourOf(item.tone);
        li.append(swatch, document.createTextNode(item.label));
        return li;
      }));
    }).catch(function () { showError(holder, "The topology could not be loaded."); });
  }

  function initTopology(root) {
    var select = (root || document).querySelector("#topology-colour:not([data-ready])");
    if (!select) { return; }
    select.setAttribute("data-ready", "1");
    select.addEventListener("change", loadTopology);
    loadTopology();
  }

  // --- downloads (exports): a plain link with auth off; with a token, fetched with it ------
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest ? evt.target.closest("a[data-download]") : null;
    if (!link || document.body.getAttribute("data-auth") !== "oidc") { return; }
    evt.preventDefault();
    fetch(link.href, { headers: authHeaders() }).then(function (r) {
      if (!r.ok) { throw new Error("The server answered " + r.status + "."); }
      return r.blob();
    }).then(function (blob) {
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = link.getAttribute("download") || "";
      document.body.append(a);
      a.click();
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    }).catch(function (err) { showError(link, "The download failed: " + err.message); });
  });

  function init(root) {
    formatTimes(root);
    initUpload(root);
    initAnalysisPoll(root);
    initTopology(root);
  }

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    document.body.addEventListener("htmx:afterSettle", function () { init(document); });
  });
})();
