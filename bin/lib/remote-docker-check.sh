#!/usr/bin/env bash
# Proves gantry/remote-docker end to end through the outer engine's Docker API (curl on its Unix socket), as root:
# starts a cimg/base:2024.01 primary container and the sidecar in its network namespace with the create options the
# agent uses (rd_sidecar_config), then from the primary, through the nested API on tcp://127.0.0.1:2375: docker
# version, a docker build (FROM scratch + busybox from Debian's busybox-static), docker run, a docker run -d -p service
# reached on the primary's localhost. Then the escapes, each of which must fail: privileged nested containers
# reaching a block device, mounting the host's disk or writing a host sysctl, --device of the host's disk,
# -v /:/host and /proc/1/root showing anything but the sidecar's own root, the host's files (the engine's state
# dir, /root/.gantry, a canary) being read from anywhere, the nested API answering outside the job's network.
# Prints one line per check and the timings; exits 1 when a check failed. Every container it starts is labelled
# dev.gantry.spike=1 and removed at the end, with its volumes. The outer engine is that of DOCKER_HOST when it answers
# (e.g. Docker's, see bin/containers docker-engine), else bin/containers setup's podman; on Docker the sidecar gets the
# agent's Docker options (rd_sidecar_config).
#   bin/lib/remote-docker-check.sh [--plain]   --plain: the sidecar without a user namespace of its own (Podman)
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
# shellcheck source=bin/lib/containers.sh
. "$root/bin/lib/containers.sh"

RD_IMAGE=gantry/remote-docker:1
RD_PRIMARY_IMAGE=cimg/base:2024.01
RD_LABEL=dev.gantry.spike
RD_NESTED=tcp://127.0.0.1:2375
# Podman's seccomp profile (containers-common 0.50.1), which the agent gives the sidecar on Docker's engine.
RD_SECCOMP=$root/gantry-agent/src/main/resources/dev/gantry/agent/executor/docker/remote-docker-seccomp.json
rd_started=()
rd_failed=0
primary=""
sidecar=""
rd_mode=userns

# The create body of the sidecar of primary container $1: what the agent sends through docker-java.
#   User: podman's uid, never root.
#   UsernsMode: a user namespace of its own out of the subordinate ids of "containers" (gantry_containers_subids),
#     as large as the image's ids (podman 2375, its subordinate ids 1000000-1065535): no process of the sidecar, nor
#     of its containers, has a uid that means anything on the host.
#   Binds: the sidecar's user namespace owns no network namespace (it shares the primary's), so the kernel refuses it
#     a sysfs of its own: the host's /sys, read-only, and the cgroup tree the nested runc looks its cgroup up in.
#   CapDrop: only SETUID, SETGID (newuidmap/newgidmap's file capabilities need them in the bounding set) and
#     SYS_CHROOT (the seccomp profile allows chroot, which builds use, only with it) stay of the engine's defaults.
#     Not CapDrop ALL + CapAdd: podman hands added capabilities to a non-root user as ambient ones.
#   SecurityOpt unmask=ALL: the nested runc mounts proc and sysfs, which the kernel refuses under masked paths.
#   Devices /dev/net/tun: slirp4netns, the nested bridge's link to the job's network (gantry_containers_tun).
# With $2 = plain, the variant without a user namespace (no UsernsMode, no Binds).
# With $2 = docker, what the agent sends to Docker's engine, which has neither a user namespace per container nor
# unmask: no UsernsMode (the sidecar's uid 2375 and its containers' subordinate ids 1000000-1065535 are host ids, none
# of them privileged), MaskedPaths and ReadonlyPaths empty (what `docker run --security-opt systempaths=unconfined`
# sends) instead of unmask, and Podman's own seccomp profile, which the agent carries (RD_SECCOMP), instead of
# Docker's default one, which refuses unshare and mount to a process without CAP_SYS_ADMIN.
rd_sidecar_config() {
  local userns='
  "UsernsMode": "auto:size=1065536", "Binds": ["/sys:/sys:ro", "/sys/fs/cgroup:/sys/fs/cgroup:ro"],'
  local security='"SecurityOpt": ["unmask=ALL"],'
  case ${2:-} in
    plain) userns="" ;;
    docker)
      userns=""
      security="\"SecurityOpt\": [$(rd_json_string "seccomp=$(cat "$RD_SECCOMP")")],
  \"MaskedPaths\": [], \"ReadonlyPaths\": [],"
      ;;
  esac
  cat <<EOF
{"Image": "$RD_IMAGE", "User": "2375:2375", "Labels": {"$RD_LABEL": "1"},
 "HostConfig": {"NetworkMode": "container:$1",$userns
  "CapDrop": ["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE",
              "NET_RAW", "SETFCAP", "SETPCAP"],
  $security
  "Devices": [{"PathOnHost": "/dev/net/tun", "PathInContainer": "/dev/net/tun", "CgroupPermissions": "rwm"}]}}
EOF
}

rd_primary_config() {
  echo "{\"Image\": \"$RD_PRIMARY_IMAGE\", \"Cmd\": [\"sleep\", \"infinity\"], \"Labels\": {\"$RD_LABEL\": \"1\"}}"
}

# ---------------------------------------------------------------------------------------------------------------------
# Engine API

rd_json_string() {
  local s=$1
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}
  s=${s//$'\t'/\\t}
  s=${s//$'\r'/\\r}
  printf '"%s"' "$s"
}

rd_json_array() {
  local out="" arg
  for arg in "$@"; do out+="${out:+, }$(rd_json_string "$arg")"; done
  echo "[$out]"
}

rd_id() {
  sed -n 's/.*"Id": *"\([0-9a-f]*\)".*/\1/p'
}

# Creates and starts a container from body $2; sets variable $1 to its id.
rd_run() {
  local out id
  out=$(gantry_docker_api /containers/create -X POST -H 'Content-Type: application/json' -d "$2")
  id=$(rd_id <<<"$out")
  [ -n "$id" ] || gantry_containers_fail "create failed: $out"
  rd_started+=("$id")
  printf -v "$1" %s "$id"
  gantry_docker_api "/containers/$id/start" --fail-with-body -X POST >/dev/null
}

# Runs command $2... in container $1 (with DOCKER_HOST at the nested API), prints its output, returns its status.
rd_exec() {
  local container=$1 body id out code
  shift
  body="{\"AttachStdout\": true, \"AttachStderr\": true, \"Tty\": true, \"Env\": [\"DOCKER_HOST=$RD_NESTED\"],
    \"Cmd\": $(rd_json_array "$@")}"
  id=$(gantry_docker_api "/containers/$container/exec" -X POST -H 'Content-Type: application/json' -d "$body" | rd_id)
  [ -n "$id" ] || gantry_containers_fail "exec in $container failed"
  out=$(gantry_docker_api "/exec/$id/start" -X POST -H 'Content-Type: application/json' -d '{"Tty": true}' | tr -d '\r')
  code=$(gantry_docker_api "/exec/$id/json" | sed -n 's/.*"ExitCode": *\([0-9]*\).*/\1/p')
  printf '%s\n' "$out"
  return "${code:-1}"
}

# Runs bash script $2 in primary $1.
rd_sh() {
  rd_exec "$1" bash -c "$2"
}

# Removes the containers started, the last first: podman keeps a container whose network another one shares.
rd_cleanup() {
  local i
  for ((i = ${#rd_started[@]} - 1; i >= 0; i--)); do
    gantry_docker_api "/containers/${rd_started[i]}?force=true&v=true" -X DELETE >/dev/null 2>&1 || true
  done
  [ -z "${rd_canary:-}" ] || rm -f "$rd_canary"
}

rd_ms() {
  echo $(($(date +%s%N) / 1000000))
}

# ---------------------------------------------------------------------------------------------------------------------
# Reporting

rd_ok() {
  printf 'ok    %s\n' "$*"
}

rd_fail() {
  printf 'FAIL  %s\n' "$*"
  rd_failed=1
}

rd_indent() {
  sed -e 's/^/        /' | head -n "${1:-8}"
}

# Functional check $1: script $2 in the primary must succeed and print $3. Reports how long it took.
rd_expect() {
  local out t0 took
  t0=$(rd_ms)
  if out=$(rd_sh "$primary" "$2" 2>&1) && grep -qF -- "$3" <<<"$out"; then
    took=$(($(rd_ms) - t0))
    rd_ok "$1 ($took ms)"
  else
    rd_fail "$1"
  fi
  rd_indent <<<"$out"
}

# Escape check $1: script $2 in the primary prints ESCAPED when the escape worked; anything else is a refusal.
rd_denied() {
  local out
  out=$(rd_sh "$primary" "$2" 2>&1) || true
  if grep -q ESCAPED <<<"$out"; then
    rd_fail "escape: $1"
  else
    rd_ok "refused: $1"
  fi
  rd_indent 6 <<<"$out"
}

# ---------------------------------------------------------------------------------------------------------------------
# Steps

# Copies a build context (Dockerfile, busybox from Debian's busybox-static, cached) into the primary's /tmp/ctx.
rd_upload_context() {
  local cache dir
  cache=$(gantry_image_cache_dir)/busybox-static
  if [ ! -x "$cache/bin/busybox" ]; then
    dir=$(mktemp -d)
    (cd "$dir" && apt-get download -qq -o APT::Sandbox::User=root busybox-static </dev/null >&2)
    mkdir -p "$cache"
    dpkg-deb -x "$dir"/busybox-static_*.deb "$cache"
    rm -rf "$dir"
  fi
  dir=$(mktemp -d)
  mkdir "$dir/ctx"
  cp "$cache/bin/busybox" "$dir/ctx/busybox"
  printf '%s\n' 'FROM scratch' 'COPY busybox /bin/busybox' 'RUN ["/bin/busybox", "--install", "-s", "/bin"]' \
    'RUN mkdir -p /tmp /mnt' 'CMD ["/bin/sh"]' >"$dir/ctx/Dockerfile"
  tar -C "$dir" --owner=3434 --group=3434 -cf "$dir/ctx.tar" ctx
  gantry_docker_api "/containers/$primary/archive?path=/tmp" --fail-with-body -X PUT \
    -H 'Content-Type: application/x-tar' -T "$dir/ctx.tar" >/dev/null
  rm -rf "$dir"
}

# Starts the sidecar and waits for the nested API as the agent does: until the sidecar's log says it is ready. Then
# the primary pings it. Reports both times from the sidecar's create.
rd_start_sidecar() {
  local t0 i out ready=""
  t0=$(rd_ms)
  rd_run sidecar "$(rd_sidecar_config "$primary" "$rd_mode")"
  for ((i = 0; i < 600; i++)); do
    if gantry_docker_api "/containers/$sidecar/logs?stdout=true&stderr=true" | grep -aq 'gantry-remote-docker: ready'
    then
      ready=$(($(rd_ms) - t0))
      break
    fi
    sleep 0.05
  done
  if [ -n "$ready" ] && out=$(rd_sh "$primary" "curl -sf http://${RD_NESTED#tcp://}/_ping"); then
    rd_ok "sidecar logs ready $ready ms after its create; the primary's /_ping: $out at $(($(rd_ms) - t0)) ms"
  else
    rd_fail "the nested API is not ready within 30 s"
    gantry_docker_api "/containers/$sidecar/logs?stdout=true&stderr=true" | tr -cd '[:print:]\n' | rd_indent 20
    return 1
  fi
}

# The sidecar's PID 1 as the host sees it (no exec: runc cannot join a user namespace that owns no network namespace).
rd_check_sidecar() {
  local pid status want_uid=2375
  pid=$(gantry_docker_api "/containers/$sidecar/json" | sed -n 's/.*"Pid": *\([0-9]*\).*/\1/p')
  status=$(grep -E '^(Uid|Cap|NoNewPrivs)' "/proc/$pid/status"; echo "uid_map: $(tr -s ' ' <"/proc/$pid/uid_map")")
  [ "$rd_mode" != userns ] || want_uid=$((2147483647 + 2375))
  if grep -qP "^Uid:\t$want_uid\t" <<<"$status" && grep -q 'CapEff:.0000000000000000' <<<"$status" &&
    grep -q 'CapAmb:.0000000000000000' <<<"$status" && grep -q 'CapBnd:.00000000000400c0' <<<"$status"; then
    rd_ok "sidecar runs as host uid $want_uid with no capabilities; bounding set SETUID SETGID SYS_CHROOT only"
  else
    rd_fail "sidecar user or capabilities"
  fi
  rd_indent <<<"$status"
}

# shellcheck disable=SC2016
rd_functional() {
  rd_expect "docker version" 'docker version --format "client {{.Client.Version}} API \
{{.Client.APIVersion}}, server {{.Server.Version}} API {{.Server.APIVersion}}"' 'server'
  rd_expect "docker build of FROM scratch + busybox" 'docker build -t gantry-check:1 /tmp/ctx' 'Successfully tagged'
  rd_expect "docker run --rm prints a line" 'docker run --rm gantry-check:1 echo hello from a nested container' \
    'hello from a nested container'
  rd_expect "nested root is the sidecar's podman user (uid_map)" \
    'docker run --rm gantry-check:1 cat /proc/self/uid_map' '2375'
  rd_expect "docker run -d -p 8080:8080, reached on the primary's localhost" 'docker run -d --name web -p 8080:8080 \
gantry-check:1 sh -c "mkdir -p /www && echo served by a nested container >/www/index.html && exec httpd -f -p 8080 \
-h /www" >/dev/null && for i in $(seq 50); do curl -sf http://127.0.0.1:8080/ && break; sleep 0.1; done; \
docker rm -f web >/dev/null' 'served by a nested container'
  rd_expect "nested container reaches the job's localhost at 10.0.2.2 (here: the nested API)" 'docker run --rm \
gantry-check:1 sh -c "printf \"GET /_ping HTTP/1.0\r\n\r\n\" | nc -w 3 10.0.2.2 2375 | tail -n 1"' 'OK'
}

rd_escapes() {
  local disk dev majmin marker
  disk=$(findmnt -no SOURCE / | sed 's/\[.*//')
  dev=$(stat -L -c '%t %T' "$disk")
  majmin="$((16#${dev% *})) $((16#${dev#* }))"
  marker="grep -qx $rd_token /host$rd_canary && echo ESCAPED"
  # docker run's attach hides why a container did not start (podman 4.3 answers 409): create, start, logs.
  rd_denied "privileged nested container (bridge): does not start or sees no block device" \
    "id=\$(docker create --privileged gantry-check:1 sh -c 'find /dev -type b | grep . && echo ESCAPED; \
mount $disk /mnt && echo ESCAPED') && docker start \$id >/dev/null && docker wait \$id >/dev/null; \
docker logs \$id; docker rm -f \$id >/dev/null"
  rd_denied "privileged nested container on the job's network: no block device in its /dev" \
    "docker run --rm --privileged --network host gantry-check:1 sh -c 'ls /dev | tr \"\n\" \" \"; echo; \
find /dev -type b | grep . && echo ESCAPED'"
  rd_denied "privileged nested container: mount $disk (the host's disk)" \
    "docker run --rm --privileged --network host gantry-check:1 sh -c 'mount $disk /mnt && echo ESCAPED'"
  rd_denied "privileged nested container: mknod $disk's node ($majmin) and mount it" \
    "docker run --rm --privileged --network host gantry-check:1 sh -c 'mknod /disk b $majmin && \
mount /disk /mnt && echo ESCAPED'"
  rd_denied "privileged nested container: write kernel.core_pattern (its own value back)" \
    "docker run --rm --privileged --network host gantry-check:1 sh -c 'v=\$(cat /proc/sys/kernel/core_pattern) && \
printf \"%s\\n\" \"\$v\" >/proc/sys/kernel/core_pattern && echo ESCAPED'"
  rd_denied "privileged nested container: add a network link to the job's network namespace" \
    "docker run --rm --privileged --network host gantry-check:1 sh -c 'ip link add gantry0 type dummy && \
echo ESCAPED'"
  rd_denied "--device $disk" "docker run --rm --device $disk gantry-check:1 echo ESCAPED"
  rd_denied "-v /:/host shows the sidecar's root, not the host's" \
    "docker run --rm -v /:/host gantry-check:1 sh -c 'echo \$(ls /host); echo hostname: \$(cat /host/etc/hostname); \
ls -d /host/run/gantry-containers && echo ESCAPED; ls /host/root/.gantry && echo ESCAPED; $marker'"
  rd_denied "privileged, --pid=host, -v /:/host: /proc/1/root and /host hold no host file" \
    "docker run --rm --privileged --network host --pid=host -v /:/host gantry-check:1 sh -c 'echo pid 1: \
\$(tr \"\\0\" \" \" </proc/1/cmdline); ls /proc/1/root/run/gantry-containers && echo ESCAPED; \
grep -qx $rd_token /proc/1/root$rd_canary && echo ESCAPED; $marker; ls /host/root/.gantry && echo ESCAPED'"
  rd_denied "the primary itself reads no host file" \
    "ls -d /run/gantry-containers /root/.gantry; grep -qx $rd_token $rd_canary && echo ESCAPED; true"
  if curl -sf --max-time 2 "http://127.0.0.1:2375/_ping" >/dev/null 2>&1; then
    rd_fail "the nested API answers on the host's 127.0.0.1:2375 (outside the job's network namespace)"
  else
    rd_ok "refused: the nested API does not answer on the host's 127.0.0.1:2375"
  fi
}

main() {
  rd_mode=userns
  [ "${1:-}" != --plain ] || rd_mode=plain
  [ "$(id -u)" = 0 ] || gantry_containers_fail "run this as root (it sets up the engine and images)"
  gantry_containers_setup
  if [ "$(gantry_docker_engine_kind)" = docker ]; then
    [ "$rd_mode" = userns ] || gantry_containers_fail "--plain is for Podman's engine; Docker's has one variant"
    rd_mode=docker
  fi
  trap rd_cleanup EXIT
  rd_canary=$(gantry_containers_state_dir)/remote-docker-check.canary
  rd_token=gantry-canary-$RANDOM$RANDOM
  echo "$rd_token" >"$rd_canary"
  echo "engine: $(gantry_docker_engine_kind) at $DOCKER_HOST; sidecar create body (primary id in NetworkMode; on \
Docker the seccomp profile cut short):"
  rd_sidecar_config '<primary>' "$rd_mode" | sed -e 's/\(seccomp=.\{40\}\).*\("\]\)/\1…\2/' -e 's/^/  /'
  rd_run primary "$(rd_primary_config)"
  rd_upload_context
  rd_start_sidecar
  rd_check_sidecar
  rd_functional
  rd_escapes
  [ "$rd_failed" = 0 ] || { echo "some checks failed"; return 1; }
  echo "all checks passed"
}

main "$@"
