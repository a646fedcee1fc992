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

  // --- busy: every htmx request marks #busy (hx-indicator on the body); our own fetches too --
  var fetching = 0;
  function busy(delta) {
    fetching = Math.max(0, fetching + delta);
    var box = document.getElementById("busy");
    if (box) { box.classList.toggle("tp-fetching", fetching > 0); }
  }

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
  // --- the network page: the lists a reader opened stay open when an action on the page
  // (re-affirm, clear) brings the whole page back from the server (issue 28) ----------------
  var keptOpen = null;
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    keptOpen = target && target.id === "network" && evt.detail.shouldSwap
      ? Array.prototype.map.call(target.querySelectorAll("details.network-list[open]"), function (d) { return d.id; })
      : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    if (!keptOpen) { return; }
    keptOpen.forEach(function (id) {
      var list = document.getElementById(id);
      if (list) { list.open = true; }
    });
    keptOpen = null;
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

  // --- the filter box and the table's links: a link (a sort header, a page, a mark) asks
  // for the view with the text in the filter box now, even when its debounced request has
  // not gone yet; and that request, when it goes, asks for the link's view too ------------
  var VIEW = ["question", "label", "mark", "sort", "desc"];
  document.addEventListener("htmx:configRequest", function (evt) {
    var elt = evt.detail.elt, hosts = document.getElementById("hosts");
    var filter = document.getElementById("host-filter");
    if (!hosts || !filter || !filter.form || evt.detail.target !== hosts || elt === filter.form) { return; }
    if (evt.detail.verb !== "get" || !elt.matches || !elt.matches("a[hx-get]")) { return; }
    var url = new URL(evt.detail.path, window.location.href);
    if ((url.searchParams.get("q") || "") !== filter.value) {
      if (filter.value) { url.searchParams.set("q", filter.value); } else { url.searchParams.delete("q"); }
      url.searchParams.delete("page");  // another filter: its first page
    }
    evt.detail.path = url.pathname + url.search;
    var form = filter.form;
    VIEW.forEach(function (name) {
      var input = form.querySelector("input[type=hidden][name='" + name + "']");
      var value = url.searchParams.get(name);
      if (!value) { if (input) { input.remove(); } return; }
      if (!input) {
        input = document.createElement("input");
        input.type = "hidden";
        input.name = name;
        form.append(input);
      }
      input.value = value;
    });
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
    function notStarted(why) {
      an.value = 0;
      anText.textContent = "not started: " + why;
      row.classList.add("upload-refused");
    }
    xhr.onerror = function () {
      fail("The upload failed: the server could not be reached.");
      upText.textContent = "failed";
      notStarted("the upload failed");
    };
    xhr.onload = function () {
      if (xhr.status >= 400) {
        fail("The upload was refused: " + messageOf(xhr));
        upText.textContent = "refused";
        notStarted("the upload was refused");
        return;
      }
      up.value = 100;
      upText.textContent = "done";
      var created = JSON.parse(xhr.responseText);
      var duplicate = xhr.status === 200;  // these bytes were uploaded before: the existing capture
      if (duplicate) {
        row.classList.add("upload-duplicate");
        var existing = document.createElement("a");
        existing.href = "/captures/" + created.id;
        existing.textContent = created.name;
        result.className = "upload-result alert alert-info";
        result.replaceChildren(document.createTextNode("Already uploaded as "), existing,
          document.createTextNode(" (" + created.id + "); nothing new was stored."));
      }
      document.body.dispatchEvent(new CustomEvent("tp-captures-changed"));
      pollCapture(created.id, function (c) {
        an.value = c.progress;
        anText.textContent = statusText(c);
      }, function (c) {
        an.value = c.status === "failed" ? 0 : 100;
        anText.textContent = statusText(c);
        if (c.status === "failed") { fail("The analysis failed: " + (c.error || "no reason given")); }
        else if (!duplicate) {
          result.className = "upload-result";
          var link = document.createElement("a");
          link.href = "/captures/" + c.id;
          link.textContent = "Open " + c.name;
          result.replaceChildren(link);
        }
        document.body.dispatchEvent(new CustomEvent("tp-captures-changed"));
      }, function (message) {
        fail("The analysis status is unavailable: " + message);
        anText.textContent = "status unavailable";
      });
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

  // --- topology: groups by subnet (local ones by VLAN too), local left and remote right, closed groups as one node -----
  // The server groups and aggregates (read/topology.py); here only the drawing: a preset
  // layout (each open group a grid of its hosts, groups packed in rows per zone), so 1,000
  // hosts draw at once and the same capture draws the same way every time.
  var graph = null;
  var view = { open: [], closed: [], label: "" };
  var CELL = 64, GAP = 60, PIE = 6, MOST_ZOOM = 1.1;
  var pieStyle = { "pie-size": "92%" };
  for (var slice = 0; slice < PIE; slice++) {
    pieStyle["pie-" + (slice + 1) + "-background-color"] = "data(pie" + slice + "c)";
    pieStyle["pie-" + (slice + 1) + "-background-size"] = "data(pie" + slice + "s)";
  }

  function blockOf(group, children) {
    var n = children.length;
    if (group.data.kind === "aggregate") {
      var side = 44 + Math.round(14 * Math.log2(1 + group.data.hosts));
      return { w: side + 40, h: side + 40, n: 0, side: side };
    }
    var cols = Math.max(1, Math.ceil(Math.sqrt(n * 1.6)));
    return { w: cols * CELL + 40, h: Math.ceil(n / cols) * CELL + 50, n: n, cols: cols };
  }

  function layOut(nodes) {
    var byParent = {};
    nodes.forEach(function (n) {
      var p = n.data.parent || "";
      (byParent[p] = byParent[p] || []).push(n);
    });
    var left = 0;
    ["zone:local", "zone:remote"].forEach(function (zone) {
      var groups = byParent[zone] || [];
      if (!groups.length) { return; }
      var blocks = groups.map(function (g) { return { g: g, b: blockOf(g, byParent[g.data.id] || []) }; });
      var area = blocks.reduce(function (a, x) { return a + x.b.w * x.b.h; }, 0);
      var width = Math.max.apply(null, blocks.map(function (x) { return x.b.w; }).concat([Math.sqrt(area) * 1.25]));
      var x = 0, y = 0, rowH = 0, right = 0;
      blocks.forEach(function (item) {
        if (x > 0 && x + item.b.w > width) { x = 0; y += rowH + GAP / 2; rowH = 0; }
        var ox = left + x + 20, oy = y + 30;
        if (item.g.data.kind === "aggregate") {
          item.g.position = { x: ox + item.b.w / 2 - 20, y: oy + item.b.h / 2 - 30 };
          item.g.data.size = item.b.side;
        } else {
          (byParent[item.g.data.id] || []).forEach(function (child, i) {
            child.position = { x: ox + (i % item.b.cols) * CELL, y: oy + Math.floor(i / item.b.cols) * CELL };
          });
        }
        x += item.b.w + GAP / 2;
        rowH = Math.max(rowH, item.b.h);
        right = Math.max(right, x);
      });
      left += right + GAP * 3;
    });
  }

  function topologyUrl(select) {
    var params = new URLSearchParams({ colour_by: select.value });
    if (view.label) { params.set("label", view.label); }
    view.open.forEach(function (g) { params.append("open", g); });
    view.closed.forEach(function (g) { params.append("closed", g); });
    return select.getAttribute("data-topology-url") + "?" + params.toString();
  }

  function toggleGroup(id, open) {
    view.open = view.open.filter(function (g) { return g !== id; });
    view.closed = view.closed.filter(function (g) { return g !== id; });
    (open ? view.open : view.closed).push(id);
    loadTopology();
  }

  function loadTopology() {
    var holder = document.getElementById("topology");
    var select = document.getElementById("topology-colour");
    if (!holder || !select || typeof window.cytoscape !== "function") { return; }
    busy(1);
    holder.setAttribute("aria-busy", "true");
    fetch(topologyUrl(select), { headers: authHeaders() }).finally(function () { busy(-1); }).then(function (r) {
      return r.json().then(function (body) { return { ok: r.ok, body: body }; });
    }).then(function (res) {
      if (!res.ok) { showError(holder, res.body.error ? res.body.error.message : "topology unavailable"); return; }
      drawTopology(holder, select, res.body);
    }).catch(function () { showError(holder, "The topology could not be loaded."); });
  }

  function drawTopology(holder, select, data) {
    // the page owns the colours: the server gives each node and legend entry a tone
    var palette = holder.getAttribute("data-palette").split(" ");
    var colourOf = function (tone) {
      if (tone === "contested") { return holder.getAttribute("data-contested-colour"); }
      if (tone === "unknown") { return holder.getAttribute("data-unknown-colour"); }
      return palette[tone % palette.length];
    };
    data.nodes.forEach(function (n) {
      if (n.data.tone !== undefined) { n.data.colour = colourOf(n.data.tone); }
      // what findings name stands out (a host, a closed group; an open one's hosts say it): a red
      // ring for high, amber else, the one sending in another's name a diamond
      if (n.data.severity && n.data.kind !== "group") { n.classes = "flagged sev-" + n.data.severity + (n.data.spoofer ? " spoofer" : ""); }
      if (n.data.mix) {  // a closed group: a pie of its hosts' answers
        var whole = n.data.hosts || 1;
        for (var i = 0; i < PIE; i++) {
          var slice = n.data.mix[i];
          n.data["pie" + i + "c"] = slice ? colourOf(slice.tone) : "#ffffff";
          n.data["pie" + i + "s"] = slice ? 100 * slice.hosts / whole : 0;
        }
      }
    });
    layOut(data.nodes);
    if (graph) { graph.destroy(); }
    graph = window.cytoscape({
      container: holder,
      elements: data.nodes.concat(data.edges),
      minZoom: 0.03,
      maxZoom: 2,
      wheelSensitivity: 0.3,
      style: [
        { selector: "node[kind = 'host']", style: {
          "background-color": "data(colour)", "label": "data(name)", "font-size": 8, "min-zoomed-font-size": 7,
          "color": "#1b1f24", "text-valign": "bottom", "text-margin-y": 2, "width": 16, "height": 16,
          "border-width": 1, "border-color": "#1b1f24" } },
        { selector: "node[kind = 'zone']", style: {
          "background-color": "#f4f6f8", "background-opacity": 0.6, "border-width": 1, "border-color": "#c5ccd4",
          "label": "data(name)", "text-valign": "top", "text-halign": "center", "font-size": 20,
          "font-weight": "bold", "color": "#57606a", "padding": 24, "shape": "round-rectangle" } },
        { selector: "node[zone = 'remote'][kind = 'zone']", style: { "background-color": "#eef4ff" } },
        { selector: "node[kind = 'group']", style: {
          "background-color": "#ffffff", "background-opacity": 0.85, "border-width": 1, "border-color": "#8c959f",
          "border-style": "dashed", "label": "data(name)", "text-valign": "top", "text-halign": "center",
          "font-size": 11, "color": "#1b1f24", "padding": 12, "shape": "round-rectangle" } },
        { selector: "node[kind = 'aggregate']", style: {
          "shape": "round-rectangle", "background-color": "#ffffff",
          "width": "data(size)", "height": "data(size)", "border-width": 2, "border-color": "#1b1f24",
          "label": "data(name)", "text-valign": "bottom", "text-margin-y": 4, "font-size": 11,
          "text-wrap": "wrap", "text-max-width": 150, "color": "#1b1f24" } },
        { selector: "node[kind = 'aggregate']", style: pieStyle },
        { selector: "node[kind = 'host'][?contested]", style: { "border-style": "dashed", "border-width": 2, "border-color": "#b45309" } },
        { selector: "node[kind = 'host'][?human]", style: { "border-width": 3, "border-color": "#6d28d9" } },
        { selector: "node[kind = 'host']", style: { "text-wrap": "wrap", "text-max-width": 160 } },
        { selector: "node.flagged", style: { "outline-width": 3, "outline-offset": 2, "outline-color": "#9a6700",
          "z-index": 20 } },
        { selector: "node.sev-high", style: { "outline-width": 5, "outline-color": "#d1242f" } },
        { selector: "node.flagged[kind = 'host']", style: { "font-weight": "bold", "color": "#a40e26" } },
        { selector: "node.spoofer[kind = 'host']", style: { "shape": "diamond", "width": 30, "height": 30, "z-index": 30 } },
        { selector: "node.flagged[kind = 'aggregate']", style: { "border-color": "#d1242f", "color": "#a40e26" } },
        { selector: "edge", style: { "width": "data(width)", "line-color": "#7d8894", "curve-style": "haystack",
          "opacity": data.edges.length > 300 ? 0.22 : 0.5 } },
        { selector: ":selected", style: { "border-width": 3, "border-color": "#0b57d0" } }
      ],
      layout: { name: "preset", fit: true, padding: 24 }
    });
    if (graph.zoom() > MOST_ZOOM) { graph.zoom(MOST_ZOOM); graph.center(); }  // a few hosts: not blown up
    // fitted far out (hundreds of hosts), the captions that say what a group is would shrink
    // below reading size: keep subnet and zone captions at ~11 px on screen, aggregates' at ~9
    var fitted = graph.zoom();
    if (fitted < 1) {
      graph.style()
        .selector("node[kind = 'group']").style({ "font-size": Math.min(40, 11 / fitted) })
        .selector("node[kind = 'zone']").style({ "font-size": Math.min(60, Math.max(20, 13 / fitted)) })
        .selector("node[kind = 'aggregate']").style({ "font-size": Math.min(30, 9 / fitted) })
        .update();
    }
    holder.tpGraph = graph;  // for the browser tests and the console
    holder.removeAttribute("aria-busy");
    // a node's title in words (its answer, each finding naming it) as the graph's tooltip
    graph.on("mouseover", "node", function (e) {
      if (e.target.data("title")) { holder.setAttribute("title", e.target.data("title")); }
    });
    graph.on("mouseout", "node", function () { holder.removeAttribute("title"); });
    var hostUrl = select.getAttribute("data-host-url");
    graph.on("tap", "node[kind = 'host']", function (e) {
      window.location.href = hostUrl + encodeURIComponent(e.target.id());
    });
    graph.on("tap", "node[kind = 'aggregate']", function (e) { toggleGroup(e.target.data("group"), true); });
    graph.on("tap", "node[kind = 'group']", function (e) {
      if (e.target.data("kind") === "group") { toggleGroup(e.target.data("group"), false); }
    });
    var note = document.getElementById("topology-note");
    var closedGroups = data.groups.filter(function (g) { return !g.open; }).length;
    note.textContent = data.shown + " of " + data.hosts + " hosts drawn one by one" +
      (data.label ? " (only " + data.matching + " whose " + data.title + " is " + data.label + ")" : "") +
      ", in " + data.groups.length + (data.groups.length === 1 ? " group" : " groups") + (data.groups.some(function (g) { return g.vlan; }) ? " by VLAN and subnet (" : " by subnet (") + closedGroups + " closed: one node each, select one to open it;" +
      " select an open group's frame to close it); " + data.edges_shown + " links" +
      (data.edges_shown < data.pairs ? " (the heaviest of " + data.pairs + ")" : "") +
      ", thicker for more bytes. Colour: " + data.title + " (a dashed ring: contested, a thick purple ring: a human" +
      " answer). Select a host to open it." +
      (data.collapsed ? " A capture of this many hosts opens with its subnet groups closed." : "") +
      (data.flagged ? " " + data.flagged + (data.flagged === 1 ? " host" : " hosts") + " named by findings:" +
        " ringed red (high) or amber, a diamond for one sending in another host's name; point at one for its findings." : "");
    var legend = document.getElementById("topology-legend");
    legend.replaceChildren.apply(legend, data.legend.map(function (item) {
      var li = document.createElement("li");
      var swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = colourOf(item.tone);
      li.append(swatch, document.createTextNode(item.label));
      return li;
    }));
    var only = document.getElementById("topology-only");
    if (only) {
      var options = [new Option("every host", "")].concat(data.labels.map(function (l) {
        return new Option(l.label + " (" + l.hosts + ")", l.label);
      }));
      only.replaceChildren.apply(only, options);
      only.value = data.label;
    }
    var list = document.getElementById("topology-groups");
    if (list) {
      document.getElementById("topology-group-count").textContent = data.groups.length;
      list.replaceChildren.apply(list, data.groups.map(function (g) {
        var li = document.createElement("li");
        li.setAttribute("data-group", g.id);
        var button = document.createElement("button");
        button.type = "button";
        button.className = "btn btn-small btn-quiet";
        button.textContent = g.open ? "close" : "open";
        button.setAttribute("aria-label", (g.open ? "close " : "open ") + g.name);
        button.addEventListener("click", function () { toggleGroup(g.id, !g.open); });
        li.append(document.createTextNode((g.zone === "local" ? "local " : "remote ") + g.name + " · " +
          g.hosts + " host" + (g.hosts === 1 ? "" : "s") + " (" + g.localities + ")" +
          (g.flagged ? " ⚑ " + g.flagged + " with findings " : " ")), button);
        return li;
      }));
    }
  }

  function initTopology(root) {
    var select = (root || document).querySelector("#topology-colour:not([data-ready])");
    if (!select) { return; }
    select.setAttribute("data-ready", "1");
    view = { open: [], closed: [], label: "" };
    select.addEventListener("change", function () { view.label = ""; loadTopology(); });
    var only = document.getElementById("topology-only");
    if (only) { only.addEventListener("change", function () { view.label = only.value; loadTopology(); }); }
    var reset = document.getElementById("topology-reset");
    if (reset) {
      reset.addEventListener("click", function () { view.open = []; view.closed = []; loadTopology(); });
    }
    var full = document.getElementById("topology-full");
    if (full) {
      var card = full.closest(".topology-card");
      var setFull = function (on) {
        card.classList.toggle("is-full", on);
        document.body.classList.toggle("topology-open", on);
        full.setAttribute("aria-pressed", on ? "true" : "false");
        full.textContent = on ? "Exit full screen" : "Full screen";
        if (graph) {
          graph.resize();
          graph.fit(undefined, 24);
          if (graph.zoom() > MOST_ZOOM) { graph.zoom(MOST_ZOOM); graph.center(); }
        }
      };
      full.addEventListener("click", function () { setFull(!card.classList.contains("is-full")); });
      document.addEventListener("keydown", function (e) {
        if (e.key === "Escape" && card.classList.contains("is-full")) { setFull(false); }
      });
    }
    // in a tab not shown yet: drawn when the tab is first shown (a hidden container has no size)
    var panel = select.closest("[role=tabpanel]");
    if (panel && panel.hidden) {
      panel.addEventListener("tp-tab-shown", function () { loadTopology(); }, { once: true });
      return;
    }
    loadTopology();
  }

  // --- tabs: the capture page's long lists, one shown at a time --------------------------
  // A tab is a button (role=tab) that shows its panel (aria-controls) and hides the others;
  // arrow keys, Home and End move between tabs. A panel shown the first time gets the
  // "tp-tab-shown" event (the topology draws then, credentials and software load then). A
  // link to something in a hidden panel (#findings-title), or htmx swapping content into one at
  // the ask of something outside it (the banner's "hosts with findings"), shows that panel's tab.
  function initTabs(root) {
    var lists = (root || document).querySelectorAll("[role=tablist][data-tabs]:not([data-ready])");
    Array.prototype.forEach.call(lists, function (list) {
      list.setAttribute("data-ready", "1");
      var tabs = Array.prototype.slice.call(list.querySelectorAll("[role=tab]"));
      var panelOf = function (tab) { return document.getElementById(tab.getAttribute("aria-controls")); };
      var show = function (tab, focus) {
        tabs.forEach(function (t) {
          var on = t === tab;
          t.setAttribute("aria-selected", on ? "true" : "false");
          t.tabIndex = on ? 0 : -1;
          panelOf(t).hidden = !on;
        });
        if (focus) { tab.focus(); }
        var panel = panelOf(tab);
        if (!panel.hasAttribute("data-shown")) {
          panel.setAttribute("data-shown", "1");
          if (window.htmx) { window.htmx.trigger(panel, "tp-tab-shown"); }
          else { panel.dispatchEvent(new CustomEvent("tp-tab-shown")); }
        } else if (graph && panel.contains(document.getElementById("topology"))) {
          graph.resize();
        }
      };
      tabs.forEach(function (tab, i) {
        if (tab.getAttribute("aria-selected") === "true") { panelOf(tab).setAttribute("data-shown", "1"); }
        tab.addEventListener("click", function () { show(tab, false); });
        tab.addEventListener("keydown", function (e) {
          var to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
          if (to === undefined) { return; }
          e.preventDefault();
          show(tabs[(to + tabs.length) % tabs.length], true);
        });
      });
      var reveal = function (element) {
        var panel = element && element.closest("[role=tabpanel]");
        var tab = panel && panel.hidden && tabs.filter(function (t) { return panelOf(t) === panel; })[0];
        if (tab) { show(tab, false); }
        return Boolean(tab);
      };
      var follow = function () {
        var target = window.location.hash && document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
        if (reveal(target)) { target.scrollIntoView(); }
      };
      window.addEventListener("hashchange", follow);
      document.addEventListener("click", function (e) {  // the same link twice: no hashchange
        var link = e.target.closest && e.target.closest("a[href^='#']:not([hx-get])");
        if (link) { reveal(document.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)))); }
      });
      document.body.addEventListener("htmx:afterSwap", function (evt) {  // asked from outside the panel
        var panel = evt.detail.target && evt.detail.target.closest && evt.detail.target.closest("[role=tabpanel]");
        var asker = evt.detail.requestConfig && evt.detail.requestConfig.elt;
        if (panel && asker && !panel.contains(asker)) { reveal(evt.detail.target); }
      });
      follow();
    });
  }

  // --- witness frames: copy a Wireshark filter; download a slice with the bearer token ------
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) { return navigator.clipboard.writeText(text); }
    var area = document.createElement("textarea");  // plain http: the clipboard API is absent
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var ok = document.execCommand("copy");
    area.remove();
    return ok ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest("button.copy-filter");
    if (!button) { return; }
    var filter = button.getAttribute("data-filter");
    var label = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", label);
    copyText(filter).then(function () {
      button.textContent = "copied: " + filter;
      button.classList.add("copied");
    }, function () {
      button.textContent = filter;  // shown, to copy by hand
    });
    setTimeout(function () { button.textContent = label; button.classList.remove("copied"); }, 4000);
  });

  // Downloads (witness frames, exports): with auth on, a link navigation carries no token,
  // so the file is fetched with it and saved instead.
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest("a[data-download]");
    if (!link || document.body.getAttribute("data-auth") !== "oidc") { return; }
    evt.preventDefault();
    fetch(link.href, { headers: authHeaders() }).then(function (r) {
      if (!r.ok) {
        return r.json().then(function (body) { throw new Error(body.error ? body.error.message : r.statusText); });
      }
      var named = /filename="([^"]+)"/.exec(r.headers.get("Content-Disposition") || "");
      return r.blob().then(function (blob) {
        var save = document.createElement("a");
        save.href = URL.createObjectURL(blob);
        save.download = link.getAttribute("download") || (named ? named[1] : "frames.pcapng");
        document.body.appendChild(save);
        save.click();
        setTimeout(function () { URL.revokeObjectURL(save.href); save.remove(); }, 1000);
      });
    }).catch(function (err) { showError(link, "Download failed: " + err.message); });
  });

  function init(root) {
    formatTimes(root);
    initUpload(root);
    initAnalysisPoll(root);
    initTabs(root);
    initTopology(root);
  }

  document.addEventListener("DOMContentLoaded", function () {
    init(document);
    document.body.addEventListener("htmx:afterSettle", function () { init(document); });
  });
})();
