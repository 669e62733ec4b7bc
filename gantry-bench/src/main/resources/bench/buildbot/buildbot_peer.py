#!/usr/bin/env python3
"""Buildbot peer of `gantry bench e2e`: sets up Buildbot on loopback, measures it, prints one JSON line.

    python3 buildbot_peer.py [--quick] [--builds N] [--window S] [--poll-ms MS] [--keep]

Steps: install Buildbot with apt-get if its commands are missing; create a master (master.cfg beside this script,
sqlite in a temp dir) and 4 workers; start them in the foreground as our children; wait until all 4 workers are
connected; then measure

  a) start latency: builds triggered one at a time on a warm, otherwise idle system. For each, t0 = wall clock just
     before the trigger POST is sent; the step running `true` counts as started at the first moment this script
     observes it started, polling the REST data API (Buildbot's REST times are whole seconds, too coarse for this).
     Latency = that moment - t0. Beside it, the same latency from the master's own clock (master.cfg logs
     time.time() when the master publishes the step's "started" event, just after it writes the step's row): a
     check that the polling neither lags nor slows the master (the two agree within a few ms).
  b) throughput: the builder is kept saturated (20 builds triggered and not finished: 4 running, about 16 pending),
     warm-up first, then completions in a fixed window count, as builds per minute.

Only standard library. Progress goes to stderr, the JSON line to stdout. Every process started here is stopped on
the way out, also on failure, Ctrl-C or SIGTERM, and the temp dir is removed (unless --keep).
"""
import argparse
import ctypes
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
WORKERS = 4
POLL_S = 0.005           # pause between two polls of the step's state while waiting for it to start (--poll-ms)
SETTLE_S = 0.2           # pause after a latency build's request completes, so the next trigger finds an idle master
# Throughput: builds triggered and not finished (running + pending). 16 pending, not 8: a trigger POST can take
# hundreds of ms on a busy master, and several builds can finish while the driver tops the backlog up.
IN_FLIGHT = WORKERS + 16
# Throughput: pause between two looks at the unfinished build requests. Each look is a request the master must
# serve beside the builds it runs (one Python process, one core at most), so rarely: 5 a second keep the backlog
# topped up and put a finish time at most one look (~200 ms) late, which moves a 60 s window's count by <1 %.
FEED_POLL_S = 0.2


def log(msg):
    try:
        print('buildbot-peer: ' + msg, file=sys.stderr, flush=True)
    except OSError:
        pass  # whoever reads our stderr went away (e.g. the JVM is exiting); the cleanup must go on regardless


# ---------------------------------------------------------------------------------------------------- install

def ensure_buildbot():
    """CI machines start clean: install the Debian packages when a command is missing, and say so."""
    missing = [c for c in ('buildbot', 'buildbot-worker') if shutil.which(c) is None]
    if not missing:
        return
    if os.geteuid() != 0:
        raise RuntimeError('%s not installed and not root: run apt-get install -y buildbot buildbot-worker'
                           % ' and '.join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    for cmd in (['apt-get', 'update', '-q'], ['apt-get', 'install', '-y', '-q', 'buildbot', 'buildbot-worker']):
        log('%s missing; running: %s' % (' and '.join(missing), ' '.join(cmd)))
        # apt's chatter to stderr, so that stdout stays the one JSON line.
        subprocess.run(cmd, env=env, check=True, stdin=subprocess.DEVNULL, stdout=sys.stderr)
    log('installed: ' + subprocess.run(['buildbot', '--version'], capture_output=True, text=True).stdout
        .replace('\n', ' ').strip())


# ---------------------------------------------------------------------------------------------------- processes

def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _die_with_parent():
    # Runs in the child before exec: its own process group (so the whole group can be signalled), and SIGKILL
    # from the kernel if this driver dies without cleaning up, so no twistd outlives us. SIGKILL, not SIGTERM: a
    # master already stopping ignores a second SIGTERM, and its graceful stop can hang (see stop_all).
    os.setsid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG


class Processes:
    def __init__(self):
        self.procs = []

    def start(self, name, argv, env, logfile):
        out = open(logfile, 'wb')
        p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             preexec_fn=_die_with_parent)
        out.close()
        self.procs.append((name, p))
        return p

    def cpu_seconds(self, prefix):
        """CPU time so far of the processes whose name starts with prefix, and of their reaped children (the
        `bash -c true` of the workers' builds), from /proc."""
        total = 0
        for name, p in self.procs:
            if name.startswith(prefix):
                try:
                    with open('/proc/%d/stat' % p.pid) as f:
                        fields = f.read().rsplit(')', 1)[1].split()
                    total += sum(int(v) for v in fields[11:15])  # utime stime cutime cstime
                except (OSError, IndexError, ValueError):
                    pass
        return total / os.sysconf('SC_CLK_TCK')

    def check_alive(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise RuntimeError('%s exited early with status %s' % (name, p.returncode))

    def stop_all(self):
        """TERM each process group, KILL what is left after 5 s, then check that no member of any group is left.

        The master's graceful stop waits for its builds, and can hang when workers went first or builds are pending
        (seen on failures and Ctrl-C); nothing of it is kept, so it gets 5 s and then SIGKILL."""
        for _, p in self.procs:
            _signal_group(p.pid, signal.SIGTERM)
        deadline = time.monotonic() + 5
        for name, p in self.procs:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log('%s did not stop on SIGTERM; killing it' % name)
        for _, p in self.procs:
            _signal_group(p.pid, signal.SIGKILL)  # also any child (bash -c true) a worker left
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        left = [name for name, p in self.procs if _group_alive(p.pid)]
        if left:
            log('WARNING: processes left running: ' + ', '.join(left))
        elif self.procs:
            log('stopped %d processes (master, workers), none left' % len(self.procs))
        self.procs = []


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


# ---------------------------------------------------------------------------------------------------- REST API

class Api:
    def __init__(self, port):
        self.base = 'http://127.0.0.1:%d/api/v2' % port
        # No proxy for loopback, whatever the environment says.
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def get(self, path, missing=None):
        """The decoded JSON answer; `missing` when the resource does not exist (yet): 404."""
        try:
            with self.opener.open(self.base + path, timeout=30) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            if e.code == 404:
                return missing
            raise RuntimeError('GET %s: HTTP %d: %s' % (path, e.code, e.read()[:300])) from None

    def force(self, builderid):
        """Triggers one build: one JSON-RPC POST to the force scheduler. Returns the build request's id."""
        body = json.dumps({'jsonrpc': '2.0', 'method': 'force', 'id': 1,
                           'params': {'builderid': str(builderid)}}).encode()
        req = urllib.request.Request(self.base + '/forceschedulers/force', data=body,
                                     headers={'Content-Type': 'application/json'})
        with self.opener.open(req, timeout=30) as r:
            reply = json.load(r)
        if 'error' in reply:
            raise RuntimeError('force failed: %s' % reply['error'])
        _bsid, brids = reply['result']
        return brids[str(builderid)]


def wait_until(what, predicate, timeout, procs, interval=0.2):
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = predicate()
            if value:
                return value
        except Exception as e:  # not up yet: refused connections, 404 (None) before the config is loaded, ...
            last_error = e
        procs.check_alive()
        if time.monotonic() > deadline:
            raise RuntimeError('timed out after %ds waiting for %s (last error: %r)' % (timeout, what, last_error))
        time.sleep(interval)


# ---------------------------------------------------------------------------------------------------- measurements

def one_build(api, builderid, poll_s):
    """Triggers one build and follows it. Returns (t0, observed start of the `true` step, buildid), all wall clock.

    Polls /builds?buildrequestid=R until the build exists, then /builds/B/steps/1 (step 0 is Buildbot's own
    worker_preparation, step 1 runs `true`) until its started_at is set; each poll follows the previous answer
    after poll_s. Then waits, polling every 20 ms, until the build request is complete."""
    t0 = time.time()
    brid = api.force(builderid)
    deadline = time.monotonic() + 60
    buildid = None
    while buildid is None:
        builds = api.get('/builds?buildrequestid=%d&field=buildid&field=buildrequestid' % brid)['builds']
        if builds:
            buildid = builds[0]['buildid']
        elif time.monotonic() > deadline:
            raise RuntimeError('build request %d did not start a build within 60 s' % brid)
        else:
            time.sleep(poll_s)
    started = None
    while started is None:
        steps = api.get('/builds/%d/steps/1?field=started_at' % buildid, {'steps': []})['steps']
        if steps and steps[0]['started_at'] is not None:
            started = time.time()
        elif time.monotonic() > deadline:
            raise RuntimeError('step 1 of build %d did not start within 60 s' % buildid)
        else:
            time.sleep(poll_s)
    while not api.get('/buildrequests/%d?field=complete' % brid)['buildrequests'][0]['complete']:
        if time.monotonic() > deadline:
            raise RuntimeError('build request %d did not complete within 60 s' % brid)
        time.sleep(0.02)
    return t0, started, buildid


def master_step_starts(path):
    """{buildid: time.time() when the master marked step 1 started}, from the log master.cfg writes."""
    starts = {}
    try:
        with open(path) as f:
            for line in f:
                e = json.loads(line)
                if e['number'] == 1:
                    starts[e['buildid']] = e['t']
    except FileNotFoundError:
        pass
    return starts


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return s[k]


def measure_latency(api, builderid, n, warmup, poll_s, starts_file):
    log('latency: %d warm-up builds, then %d builds one at a time' % (warmup, n))
    for _ in range(warmup):
        one_build(api, builderid, poll_s)
        time.sleep(SETTLE_S)
    runs = []
    for i in range(n):
        runs.append(one_build(api, builderid, poll_s))
        time.sleep(SETTLE_S)
    polled = [(started - t0) * 1000 for t0, started, _ in runs]
    master = master_step_starts(starts_file)
    exact = [(master[b] - t0) * 1000 for t0, _, b in runs if b in master]
    log('latency: polled p50 %.1f ms p95 %.1f ms max %.1f ms; master clock p50 %s ms'
        % (percentile(polled, 50), percentile(polled, 95), max(polled),
           '%.1f' % percentile(exact, 50) if exact else 'n/a'))
    return polled, exact


def measure_throughput(api, builderid, warmup_s, window_s, procs):
    """Keeps IN_FLIGHT builds triggered and not finished; counts build requests seen finished during the window.

    A request counts as finished at the first look (every FEED_POLL_S) that no longer lists it among the
    unfinished ones, so a finish time is late by at most one look (FEED_POLL_S plus the request)."""
    log('throughput: %d builds in flight, %d s warm-up, %d s window' % (IN_FLIGHT, warmup_s, window_s))
    ours = set()
    finished_at = []
    min_pending = None
    start = time.monotonic()
    window_start = start + warmup_s
    window_end = window_start + window_s
    cpu_at_start = None
    while True:
        now = time.monotonic()
        if now >= window_end:
            break
        if cpu_at_start is None and now >= window_start:
            cpu_at_start = (now, procs.cpu_seconds('master'), procs.cpu_seconds('worker'))
        requests = api.get('/buildrequests?complete=false&field=buildrequestid&field=complete&field=claimed')
        seen = time.monotonic()
        unfinished = {r['buildrequestid'] for r in requests['buildrequests']}
        done = ours - unfinished
        finished_at.extend([seen] * len(done))
        ours &= unfinished
        if seen >= window_start:
            pending = sum(1 for r in requests['buildrequests'] if not r['claimed'])
            min_pending = pending if min_pending is None else min(min_pending, pending)
        for _ in range(IN_FLIGHT - len(ours)):
            ours.add(api.force(builderid))
        time.sleep(FEED_POLL_S)
    counted = sum(1 for t in finished_at if window_start <= t < window_end)
    t, master_cpu, workers_cpu = cpu_at_start
    elapsed = time.monotonic() - t
    master_cpu = procs.cpu_seconds('master') - master_cpu
    workers_cpu = procs.cpu_seconds('worker') - workers_cpu
    # CPU per build depends far less than builds per minute on what else the machine is running.
    cpu = {'master_cpu_pct': round(100 * master_cpu / elapsed), 'workers_cpu_pct': round(100 * workers_cpu / elapsed),
           'cpu_ms_per_build': round(1000 * (master_cpu + workers_cpu) / counted) if counted else None}
    log('throughput: %d builds finished in the %d s window (%.1f/min); at least %d pending throughout; CPU '
        '(%% of one core) master %d, workers %d; %s ms CPU per build'
        % (counted, window_s, counted * 60.0 / window_s, min_pending if min_pending is not None else -1,
           cpu['master_cpu_pct'], cpu['workers_cpu_pct'], cpu['cpu_ms_per_build']))
    # Let what is still in flight finish, so the failure check below sees every build (and the workers are idle).
    deadline = time.monotonic() + 120
    while api.get('/buildrequests?complete=false&field=buildrequestid&field=complete')['meta']['total'] > 0:
        if time.monotonic() > deadline:
            raise RuntimeError('builds still unfinished 120 s after the window')
        time.sleep(0.2)
    return counted, min_pending, cpu


# ---------------------------------------------------------------------------------------------------- main

def stub_www(root):
    """A stub 'base' www plugin, put on the master's PYTHONPATH.

    Buildbot's web server refuses to start without the 'base' plugin, the web UI's JavaScript (buildbot-www on
    PyPI), which Debian does not package. The REST data API the bench uses is in Buildbot itself; the stub only
    satisfies the plugin lookup (an entry point in group buildbot.www) and serves an empty static dir."""
    pkg = os.path.join(root, 'bench_www')
    os.makedirs(os.path.join(pkg, 'static'))
    with open(os.path.join(pkg, '__init__.py'), 'w') as f:
        f.write("from buildbot.www.plugin import Application\n"
                "ep = Application(__name__, 'stub: no web UI, REST API only', ui=False)\n")
    with open(os.path.join(pkg, 'VERSION'), 'w') as f:
        f.write('0.0.0\n')
    info = os.path.join(root, 'bench_www-0.0.0.dist-info')
    os.makedirs(info)
    with open(os.path.join(info, 'METADATA'), 'w') as f:
        f.write('Metadata-Version: 2.1\nName: bench-www\nVersion: 0.0.0\n')
    with open(os.path.join(info, 'entry_points.txt'), 'w') as f:
        f.write('[buildbot.www]\nbase = bench_www:ep\n')


def run(args, procs, tmp):
    ensure_buildbot()
    www_port, pb_port = free_port(), free_port()
    stub_www(os.path.join(tmp, 'www-stub'))
    starts_file = os.path.join(tmp, 'step-starts.jsonl')
    env = dict(os.environ, BENCH_WWW_PORT=str(www_port), BENCH_PB_PORT=str(pb_port), BENCH_WORKERS=str(WORKERS),
               BENCH_STEP_STARTS=starts_file, PYTHONPATH=os.path.join(tmp, 'www-stub'),
               PYTHONDONTWRITEBYTECODE='1')
    master = os.path.join(tmp, 'master')
    log('creating master and %d workers in %s (web/REST 127.0.0.1:%d, PB 127.0.0.1:%d)'
        % (WORKERS, tmp, www_port, pb_port))
    subprocess.run(['buildbot', 'create-master', '-q', master], env=env, check=True,
                   stdin=subprocess.DEVNULL, stdout=sys.stderr)
    shutil.copy(os.path.join(HERE, 'master.cfg'), os.path.join(master, 'master.cfg'))
    for i in range(1, WORKERS + 1):
        subprocess.run(['buildbot-worker', 'create-worker', '-q', os.path.join(tmp, 'w%d' % i),
                        '127.0.0.1:%d' % pb_port, 'w%d' % i, 'pass'], env=env, check=True,
                       stdin=subprocess.DEVNULL, stdout=sys.stderr)

    t = time.monotonic()
    procs.start('master', ['buildbot', 'start', '--nodaemon', master], env, os.path.join(tmp, 'master.out'))
    api = Api(www_port)
    builderid = wait_until('the master\'s REST API', lambda: api.get('/builders/noop')['builders'][0]['builderid'],
                           120, procs)
    for i in range(1, WORKERS + 1):
        procs.start('worker w%d' % i, ['buildbot-worker', 'start', '--nodaemon', os.path.join(tmp, 'w%d' % i)],
                    env, os.path.join(tmp, 'w%d.out' % i))
    wait_until('%d connected workers' % WORKERS,
               lambda: sum(1 for w in api.get('/workers')['workers'] if w['connected_to']) == WORKERS, 120, procs)
    log('master and %d workers up in %.1f s' % (WORKERS, time.monotonic() - t))

    polled, exact = measure_latency(api, builderid, args.builds, args.warmup_builds, args.poll_ms / 1000,
                                    starts_file)
    builds, min_pending, cpu = measure_throughput(api, builderid, args.warmup, args.window, procs)
    failed = api.get('/builds?builderid=%d&results__ne=0&field=buildid&field=builderid&field=results'
                     % builderid)['meta']['total']
    if failed:
        raise RuntimeError('%d builds did not succeed; see the master log' % failed)

    return {
        'p50_start_ms': round(percentile(polled, 50), 1),
        'p95_start_ms': round(percentile(polled, 95), 1),
        'builds_per_min': round(builds * 60.0 / args.window, 1),
        'builds': builds,
        'window_s': args.window,
        'method': 'start: wall clock just before the trigger POST (ForceScheduler JSON-RPC) to the first poll '
                  'of GET /api/v2/builds/B/steps/1 that shows started_at set (polls %g ms apart, one at a time); '
                  'n=%d sequential builds after %d warm-up, %d ms idle between builds. throughput: %d builds '
                  'kept triggered-and-unfinished, finishes seen by polling unfinished build requests every %d ms, '
                  'counted over the window after %d s warm-up'
                  % (args.poll_ms, len(polled), args.warmup_builds, SETTLE_S * 1000, IN_FLIGHT,
                     FEED_POLL_S * 1000, args.warmup),
        'latency_n': len(polled),
        'max_start_ms': round(max(polled), 1),
        'p50_start_ms_master': round(percentile(exact, 50), 1) if exact else None,
        'p95_start_ms_master': round(percentile(exact, 95), 1) if exact else None,
        'min_pending': min_pending,
        'master_cpu_pct': cpu['master_cpu_pct'],
        'workers_cpu_pct': cpu['workers_cpu_pct'],
        'cpu_ms_per_build': cpu['cpu_ms_per_build'],
        'workers': WORKERS,
        'buildbot': subprocess.run(['buildbot', '--version'], capture_output=True, text=True).stdout
        .splitlines()[0].split(':', 1)[-1].strip(),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--quick', action='store_true', help='15 latency builds, 20 s throughput window')
    p.add_argument('--builds', type=int, help='latency builds (default 50, quick 15)')
    p.add_argument('--window', type=int, help='throughput window in seconds (default 60, quick 20)')
    p.add_argument('--warmup', type=int, help='saturated warm-up before the window, seconds (default 30, quick 10)')
    p.add_argument('--keep', action='store_true', help='keep the temp dir (logs, sqlite) for a look afterwards')
    p.add_argument('--poll-ms', type=float, default=POLL_S * 1000,
                   help='pause between polls while waiting for a step to start (default %(default)s)')
    args = p.parse_args()
    args.builds = args.builds or (15 if args.quick else 50)
    args.window = args.window or (20 if args.quick else 60)
    args.warmup_builds = 3 if args.quick else 5
    args.warmup = args.warmup if args.warmup is not None else (10 if args.quick else 30)

    # SIGTERM (e.g. from the Java side) and SIGHUP unwind like Ctrl-C, through the finally below.
    def stop(signum, _frame):
        log('got signal %d; stopping' % signum)
        sys.exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, stop)

    tmp = tempfile.mkdtemp(prefix='gantry-bench-buildbot-')
    procs = Processes()
    try:
        result = run(args, procs, tmp)
    except BaseException as e:
        if not isinstance(e, (SystemExit, KeyboardInterrupt)):
            log('FAILED: %s: %s' % (type(e).__name__, e))
            tail_logs(tmp)
        raise
    finally:
        # Both together: a second Ctrl-C during the cleanup must not leave processes behind.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        procs.stop_all()
        if args.keep:
            log('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result), flush=True)


def tail_logs(tmp, lines=25):
    path = os.path.join(tmp, 'master', 'twistd.log')
    if os.path.exists(path):
        with open(path, errors='replace') as f:
            tail = f.readlines()[-lines:]
        log('last lines of the master log:\n' + ''.join(tail).rstrip())


if __name__ == '__main__':
    main()
