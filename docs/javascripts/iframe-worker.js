/*
 * Web Workers for a site opened from file:// (the offline plugin's search).
 *
 * A browser refuses `new Worker("file:///...")`, so Material's search worker cannot start when
 * the built site is opened from disk. Where the page is a file:// page, this replaces `Worker`
 * with one that runs the worker's script in a hidden iframe: the script is loaded with a
 * <script> tag (allowed from file://), its `postMessage` is routed back to this page, and
 * messages sent to it arrive as "message" events on the iframe's window. Over HTTP the browser's
 * own Worker is kept. Material's offline plugin looks for a polyfill whose name holds
 * "iframe-worker" and, finding this one, adds no script from the network.
 */
(function () {
  "use strict";
  if (location.protocol !== "file:" || window.IFrameWorker) {
    return;
  }

  function load(doc, urls) {
    return urls.reduce(function (done, url) {
      return done.then(function () {
        return new Promise(function (resolve, reject) {
          var script = doc.createElement("script");
          script.src = new URL(url, location.href).href;
          script.onload = resolve;
          script.onerror = function () {
            reject(new Error("could not load " + url));
          };
          doc.body.appendChild(script);
        });
      });
    }, Promise.resolve());
  }

  function IFrameWorker(url) {
    var target = new EventTarget();
    var frame = document.createElement("iframe");
    var self = this;
    var queue = [];
    var ready = false;
    this.onmessage = null;
    this.onerror = null;
    this.addEventListener = target.addEventListener.bind(target);
    this.removeEventListener = target.removeEventListener.bind(target);
    this.dispatchEvent = target.dispatchEvent.bind(target);

    frame.hidden = true;
    frame.setAttribute("aria-hidden", "true");
    frame.tabIndex = -1;
    document.body.appendChild(frame);
    var win = frame.contentWindow;
    var doc = win.document;
    if (!doc.body) {
      doc.appendChild(doc.createElement("body"));
    }
    // The worker's globals: its replies come back here, importScripts loads in order.
    win.postMessage = function (data) {
      setTimeout(function () {
        var event = new MessageEvent("message", { data: data });
        if (typeof self.onmessage === "function") {
          self.onmessage(event);
        }
        self.dispatchEvent(event);
      });
    };
    win.importScripts = function () {
      return load(doc, Array.prototype.slice.call(arguments));
    };
    this._send = function (data) {
      win.dispatchEvent(new win.MessageEvent("message", { data: data }));
    };
    this.postMessage = function (data) {
      if (ready) {
        self._send(data);
      } else {
        queue.push(data);
      }
    };
    this.terminate = function () {
      frame.remove();
    };
    load(doc, [url]).then(
      function () {
        ready = true;
        queue.splice(0).forEach(self._send);
      },
      function (error) {
        var event = new ErrorEvent("error", { message: String(error) });
        if (typeof self.onerror === "function") {
          self.onerror(event);
        }
        self.dispatchEvent(event);
      }
    );
  }

  window.IFrameWorker = IFrameWorker;
  window.Worker = IFrameWorker;
})();
