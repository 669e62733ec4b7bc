// The live parts of Gantry's pages (docs/ui.md): a page that has them names its event stream in data-live, and
// this script applies what the stream sends (LiveStreams.java says the protocol). Without JavaScript the page is
// complete as rendered; it only does not change.
//
// Our own few lines rather than the htmx SSE extension, for three reasons: when a stream fails for good (an error
// answer, not a dropped connection) the extension opens a new EventSource on the same URL, which sends no
// Last-Event-ID, so a job's output would show twice; here every reconnect says where the page is. A step's output is
// two changes that belong together (append the finished lines, replace the unfinished last one), and a new step is
// added only if the page lacks it. And the stream's end must stop the reconnects.
(function () {
  'use strict';
  var root = document.querySelector('[data-live]');
  if (!root || !window.EventSource) {
    return;
  }
  var note = document.getElementById('live-note');
  var lastId = root.getAttribute('data-live-from');
  var failures = 0;

  function say(text) {
    if (note) {
      note.textContent = text;
    }
  }

  function apply(change) {
    var target = document.getElementById(change.target);
    if (!target) {
      return;
    }
    if (change.op === 'inner') {
      target.innerHTML = change.html;
    } else if (change.op === 'add') {
      if (!document.getElementById(change.id)) {
        target.insertAdjacentHTML('beforeend', change.html);
      }
    } else if (change.op === 'output') {
      target.insertAdjacentHTML('beforebegin', change.lines);
      target.innerHTML = change.tail;
    }
  }

  function connect() {
    var url = root.getAttribute('data-live');
    if (lastId) {
      url += (url.indexOf('?') < 0 ? '?' : '&') + 'from=' + encodeURIComponent(lastId);
    }
    var source = new EventSource(url);
    source.addEventListener('change', function (event) {
      if (event.lastEventId) {
        lastId = event.lastEventId;
      }
      JSON.parse(event.data).forEach(apply);
    });
    source.addEventListener('open', function () {
      failures = 0;
      say('');
    });
    source.addEventListener('busy', function (event) {
      say(event.data); // the browser tries again after the retry time the server gave
    });
    source.addEventListener('end', function (event) {
      source.close();
      say(event.data);
    });
    source.onerror = function () {
      if (source.readyState !== EventSource.CLOSED) {
        return; // the browser reconnects by itself, with Last-Event-ID
      }
      failures++;
      if (failures > 5) {
        say('Live updates stopped: reload the page to see the latest.');
        return;
      }
      say('Live updates are interrupted; trying again.');
      window.setTimeout(connect, 1000 * Math.pow(2, failures - 1));
    };
  }

  connect();
}());
