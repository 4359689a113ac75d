// Notices in this browser (Web Push): the seat's game page asks the
// browser for a push subscription with the server's key and posts it
// through the page's own form. Without this script, or in a browser
// without service workers and push, the part stays hidden.
(function () {
  "use strict";
  var box = document.getElementById("push");
  var form = document.getElementById("push-form");
  if (!box || !form) { return; }
  var state = document.getElementById("push-state");
  var button = document.getElementById("push-on");
  var say = function (words) { state.textContent = words; };
  // Post a subscription (as PushSubscription.toJSON gives it) to the server.
  var post = function (sub) {
    form.elements.endpoint.value = sub.endpoint || "";
    form.elements.p256dh.value = (sub.keys && sub.keys.p256dh) || "";
    form.elements.auth.value = (sub.keys && sub.keys.auth) || "";
    form.submit();
  };
  window.runestonePush = { post: post };
  box.hidden = false;
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    say("This browser cannot take push notices (it needs service workers and push, over https).");
    button.disabled = true;
    return;
  }
  // The server's public key, base64url, as the bytes the browser wants.
  var key = function () {
    var s = box.getAttribute("data-key").replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) { s += "="; }
    var raw = window.atob(s);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
    return out;
  };
  button.addEventListener("click", function () {
    button.disabled = true;
    say("Asking this browser…");
    Notification.requestPermission().then(function (answer) {
      if (answer !== "granted") {
        throw new Error("this browser does not allow this site to show notifications (" + answer + ")");
      }
      return navigator.serviceWorker.register("/static/push-sw.js", { scope: "/games/" });
    }).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      // A browser without a push service of its own may never answer.
      var late = new Promise(function (_, no) {
        window.setTimeout(function () { no(new Error("its push service did not answer within 30 seconds")); }, 30000);
      });
      return Promise.race([reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key() }), late]);
    }).then(function (sub) {
      say("Saving…");
      post(sub.toJSON());
    }).catch(function (e) {
      button.disabled = false;
      say("Push notices could not be set up in this browser: " + (e && e.message ? e.message : e));
    });
  });
}());
