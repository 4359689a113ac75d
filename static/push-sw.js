// The service worker of notices in a browser: shows each notice the push
// service brings (decrypted by the browser) and opens the game page, or
// the notice's stop link, when it is clicked. It handles nothing else.
"use strict";
var sameOrigin = function (url) {
  try { return new URL(url, self.location.origin).origin === self.location.origin; } catch (e) { return false; }
};
self.addEventListener("push", function (event) {
  var n = {};
  try { n = event.data ? event.data.json() : {}; } catch (e) { n = {}; }
  var actions = n.stop ? [{ action: "stop", title: "Stop these notices" }] : [];
  event.waitUntil(self.registration.showNotification(n.title || "runestone", {
    body: n.text || "",
    // One notice per game on the screen: a notice sent twice replaces itself.
    tag: "runestone-" + (n.game || ""),
    data: { link: n.link, stop: n.stop },
    actions: actions
  }));
});
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var d = event.notification.data || {};
  var url = event.action === "stop" ? d.stop : d.link;
  if (url && sameOrigin(url)) { event.waitUntil(self.clients.openWindow(url)); }
});
