/* Browser login with TRACEPCAP_AUTH=oidc: authorization code + PKCE against the issuer named
   by the page (its discovery document gives the endpoints). The access token lives in
   sessionStorage and goes out as "Authorization: Bearer" on htmx requests, uploads and
   fetches. Who is logged in comes from /api/me; the server decides what they may do and
   leaves write controls out of the pages for viewers (and refuses the writes regardless).
   With auth off this file only marks requests as the page's own (X-TracePcap-Request). */
(function () {
  "use strict";

  var KEY = "tracepcap.auth";
  var PENDING = "tracepcap.login";
  var CALLBACK = "/auth/callback";
  var body = document.body || document.documentElement;
  var mode = null, issuer = null, clientId = null;

  function b64url(bytes) {
    var text = "";
    new Uint8Array(bytes).forEach(function (b) { text += String.fromCharCode(b); });
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function random(n) { return b64url(crypto.getRandomValues(new Uint8Array(n))); }

  function stored() {
    try {
      var s = JSON.parse(sessionStorage.getItem(KEY) || "null");
      if (s && s.access_token && (!s.expires_at || s.expires_at > Date.now() + 5000)) { return s; }
    } catch (e) { /* unreadable: treated as absent */ }
    return null;
  }

  var discovery = null;
  function discover() {
    if (!discovery) {
      discovery = fetch(issuer + "/.well-known/openid-configuration").then(function (r) {
        if (!r.ok) { throw new Error("the issuer's discovery document answered " + r.status); }
        return r.json();
      });
    }
    return discovery;
  }

  function login() {
    var verifier = random(48), state = random(16);
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)).then(function (digest) {
      return discover().then(function (doc) {
        sessionStorage.setItem(PENDING, JSON.stringify({
          verifier: verifier, state: state,
          back: window.location.pathname === CALLBACK ? "/" : window.location.pathname + window.location.search
        }));
        var params = new URLSearchParams({
          response_type: "code", client_id: clientId, redirect_uri: window.location.origin + CALLBACK,
          scope: "openid profile", state: state, code_challenge: b64url(digest), code_challenge_method: "S256"
        });
        window.location.assign(doc.authorization_endpoint + "?" + params.toString());
      });
    }).catch(function (err) { say("Log in failed: " + err.message); });
  }

  function finish() {
    var params = new URLSearchParams(window.location.search);
    var pending = JSON.parse(sessionStorage.getItem(PENDING) || "null");
    sessionStorage.removeItem(PENDING);
    if (params.get("error")) { return Promise.reject(new Error(params.get("error_description") || params.get("error"))); }
    if (!pending || params.get("state") !== pending.state) {
      return Promise.reject(new Error("the login answer does not match a login this browser started"));
    }
    return discover().then(function (doc) {
      return fetch(doc.token_endpoint, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code", code: params.get("code"), client_id: clientId,
          redirect_uri: window.location.origin + CALLBACK, code_verifier: pending.verifier
        }).toString()
      });
    }).then(function (r) {
      return r.json().then(function (token) {
        if (!r.ok) { throw new Error(token.error_description || token.error || ("token endpoint answered " + r.status)); }
        sessionStorage.setItem(KEY, JSON.stringify({
          access_token: token.access_token, id_token: token.id_token || null,
          expires_at: token.expires_in ? Date.now() + 1000 * token.expires_in : null
        }));
        window.location.replace(pending.back || "/");
      });
    });
  }

  function logout() {
    var s = stored();
    sessionStorage.removeItem(KEY);
    discover().then(function (doc) {
      if (doc.end_session_endpoint) {
        var params = new URLSearchParams({ client_id: clientId, post_logout_redirect_uri: window.location.origin + "/" });
        if (s && s.id_token) { params.set("id_token_hint", s.id_token); }
        window.location.assign(doc.end_session_endpoint + "?" + params.toString());
      } else {
        window.location.assign("/");
      }
    }).catch(function () { window.location.assign("/"); });
  }

  function say(text) {
    var wait = document.getElementById("content-wait");
    if (wait) { wait.textContent = text; }
  }

  function show(name, roles) {
    var who = document.getElementById("who-name");
    who.textContent = name ? name + " (" + roles.join(", ") + ")" : "not signed in";
    document.getElementById("login").hidden = !!name;
    document.getElementById("logout").hidden = !name;
    body.setAttribute("data-can-write", roles.indexOf("analyst") >= 0 ? "true" : "false");
  }

  function ready() { body.dispatchEvent(new CustomEvent("tp:ready")); }

  window.TracePcapAuth = {
    // every request of ours says so: the server refuses a write without this header (or a
    // token), which a page on another site cannot send
    headers: function () {
      var s = mode === "oidc" ? stored() : null;
      var headers = { "X-TracePcap-Request": "1" };
      if (s) { headers.Authorization = "Bearer " + s.access_token; }
      return headers;
    },
    expired: function () {
      if (mode !== "oidc") { return; }
      sessionStorage.removeItem(KEY);
      show(null, []);
      say("Your session ended. Log in again.");
    },
    login: login,
    logout: logout
  };

  document.addEventListener("htmx:configRequest", function (evt) {
    var headers = window.TracePcapAuth.headers();
    Object.keys(headers).forEach(function (k) { evt.detail.headers[k] = headers[k]; });
  });

  document.addEventListener("DOMContentLoaded", function () {
    body = document.body;
    mode = body.getAttribute("data-auth");
    if (mode !== "oidc") { return; }
    issuer = body.getAttribute("data-issuer");
    clientId = body.getAttribute("data-client-id");
    document.getElementById("login").addEventListener("click", login);
    document.getElementById("logout").addEventListener("click", logout);
    if (window.location.pathname === CALLBACK) {
      say("Signing in…");
      finish().catch(function (err) { show(null, []); say("Log in failed: " + err.message); });
      return;
    }
    if (!stored()) {
      show(null, []);
      say("Log in to see the captures.");
      return;
    }
    fetch("/api/me", { headers: window.TracePcapAuth.headers() }).then(function (r) {
      return r.json().then(function (me) { return { ok: r.ok, me: me }; });
    }).then(function (res) {
      if (!res.ok) {
        window.TracePcapAuth.expired();
        say("Log in failed: " + (res.me.error ? res.me.error.message : "the server refused the token"));
        return;
      }
      show(res.me.actor, res.me.roles);
      ready();
    }).catch(function () { say("The server could not be reached."); });
  });
})();
