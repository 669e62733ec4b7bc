# shellcheck shell=bash
# Sourced by bin/containers and bin/test. Sets up what the Docker container executor and its tests need: a container
# engine answering the Docker Engine API on a Unix socket (podman's Docker-compatible service, run as root with runc),
# and the small stand-in images that CircleCI configs name (cimg/base, cimg/python, cimg/postgres, the machine image
# ubuntu-2204), built from Debian packages with mmdebstrap because this machine reaches no image registry, plus
# gantry/remote-docker, the unprivileged sidecar that gives a job its own Docker API (setup_remote_docker, machine).
# For tests of private images it also runs a registry on 127.0.0.1:5000 that wants a login (see "Registry" below).
#
# gantry_containers_setup exports DOCKER_HOST (and CONTAINERS_CONF when the engine is our podman). It is idempotent:
# when the engine answers and every image carries the label of its current recipe it starts and builds nothing.
# Written for callers under set -euo pipefail. Messages go to stderr. Knobs: GANTRY_CONTAINERS_STATE (socket, pid,
# log, containers.conf, registries.conf, the registry's storage), GANTRY_IMAGE_CACHE (rootfs tarballs of built images), GANTRY_DEBIAN_MIRROR,
# GANTRY_IMAGE_JOBS (image builds at once, default 3).

GANTRY_IMAGES=(base python postgres machine remote_docker)
GANTRY_DEBIAN_SUITE=bookworm
# command -> Debian package that provides it; curl talks to the API, catatonit is the init of podman's pod infra,
# docker-registry and htpasswd (bcrypt, which the registry requires) serve the test registry.
GANTRY_CONTAINER_TOOLS=(podman:podman runc:runc mmdebstrap:mmdebstrap catatonit:catatonit curl:curl flock:util-linux
  docker-registry:docker-registry htpasswd:apache2-utils)

# The test registry: plain HTTP on loopback, with a login. These are test credentials, not secrets; tests use them.
GANTRY_REGISTRY=127.0.0.1:5000
GANTRY_REGISTRY_USER=gantry
GANTRY_REGISTRY_PASSWORD=gantry-registry-secret
# What it holds, pushed from cimg/base: a job naming it must pull it, with the credentials above.
GANTRY_REGISTRY_IMAGE=gantry/private:1

gantry_containers_log() {
  echo "gantry-containers: $*" >&2
}

gantry_containers_fail() {
  gantry_containers_log "$*"
  return 1
}

# Directory holding the socket, pid file, log and generated containers.conf.
gantry_containers_state_dir() {
  if [ -n "${GANTRY_CONTAINERS_STATE:-}" ]; then
    echo "$GANTRY_CONTAINERS_STATE"
  elif [ "$(id -u)" = 0 ]; then
    echo "${XDG_RUNTIME_DIR:-/run}/gantry-containers"
  else
    echo "$HOME/.cache/gantry/containers"
  fi
}

gantry_image_cache_dir() {
  echo "${GANTRY_IMAGE_CACHE:-$HOME/.cache/gantry/images}"
}

# ---------------------------------------------------------------------------------------------------------------------
# Packages

# Installs the Debian packages whose commands are missing; only root can, others are told what to install. Arguments,
# when given, are the command:package entries to check instead of GANTRY_CONTAINER_TOOLS, after an optional
# --no-install-recommends; a command that starts with / is a file that must exist (bin/lib/browser.sh uses that).
gantry_containers_need_tools() {
  local entry missing=() entries apt=(-y)
  if [ "${1:-}" = --no-install-recommends ]; then
    apt+=("$1")
    shift
  fi
  entries=("$@")
  [ "$#" -gt 0 ] || entries=("${GANTRY_CONTAINER_TOOLS[@]}")
  for entry in "${entries[@]}"; do
    gantry_containers_have_tool "${entry%%:*}" || missing+=("${entry#*:}")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    gantry_containers_fail "missing ${missing[*]}; as root run: apt-get install ${apt[*]} ${missing[*]}"
    return 1
  fi
  gantry_containers_log "installing ${missing[*]}"
  # A fresh machine may have no package lists yet, or stale ones: update only when the plain install fails.
  local DEBIAN_FRONTEND=noninteractive
  export DEBIAN_FRONTEND
  apt-get install "${apt[@]}" "${missing[@]}" </dev/null >&2 ||
    { apt-get update </dev/null >&2 && apt-get install "${apt[@]}" "${missing[@]}" </dev/null >&2; }
}

gantry_containers_have_tool() {
  case $1 in
    # Debian puts catatonit in /usr/bin; podman also looks in /usr/libexec/podman.
    catatonit) [ -x /usr/bin/catatonit ] || [ -x /usr/libexec/podman/catatonit ] ;;
    /*) [ -e "$1" ] ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

# ---------------------------------------------------------------------------------------------------------------------
# Engine

# Talks to the engine at DOCKER_HOST (unix:///path or tcp://host:port): gantry_docker_api PATH [curl options].
gantry_docker_api() {
  local path=$1 host=${DOCKER_HOST:-unix:///var/run/docker.sock}
  shift
  case $host in
    unix://*) curl -sS --unix-socket "${host#unix://}" "$@" "http://docker$path" ;;
    tcp://*) curl -sS "$@" "http://${host#tcp://}$path" ;;
    *) gantry_containers_fail "unsupported DOCKER_HOST=$host" ;;
  esac
}

# /_ping, not /version: podman takes a second to answer /version (it asks conmon and runc for theirs).
gantry_docker_answers() {
  gantry_docker_api /_ping --fail --max-time 5 >/dev/null 2>&1
}

# Prints which engine answers at DOCKER_HOST: podman (its /version names a "Podman Engine" component) or docker.
gantry_docker_engine_kind() {
  if gantry_docker_api /version --fail --max-time 10 | grep -q '"Name": *"Podman Engine"'; then
    echo podman
  else
    echo docker
  fi
}

# Writes containers.conf for our podman and exports CONTAINERS_CONF. crun refuses this kernel's hybrid cgroup v1, so
# runc; no systemd, so cgroupfs and a file events log. runc cannot raise a container's rlimits above the hard limits
# of the engine that starts it ("error setting rlimit type 7"), so the defaults are taken from this shell's.
gantry_containers_conf() {
  local state=$1 nofile nproc conf text
  nofile=$(ulimit -Hn)
  nproc=$(ulimit -Hu)
  if [ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ]; then nofile=1048576; fi
  if [ "$nproc" = unlimited ] || [ "$nproc" -gt 4096 ]; then nproc=4096; fi
  conf=$state/containers.conf
  text=$(printf '%s\n' '[containers]' \
    "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]" \
    '[engine]' 'runtime = "runc"' 'cgroup_manager = "cgroupfs"' 'events_logger = "file"')
  gantry_write_if_changed "$conf" "$text"
  export CONTAINERS_CONF=$conf
  gantry_containers_registries_conf "$state"
}

# Writes file $1 with text $2 unless it already has exactly that.
gantry_write_if_changed() {
  [ -f "$1" ] && [ "$(cat "$1")" = "$2" ] || printf '%s\n' "$2" >"$1"
}

# Writes registries.conf for our podman and exports CONTAINERS_REGISTRIES_CONF: the system file's settings (Debian's
# has none) plus the test registry as insecure, i.e. plain HTTP. No unqualified-search-registries: a short name like
# cimg/base then resolves to the local image only, never to a registry.
gantry_containers_registries_conf() {
  local state=$1 conf=$1/registries.conf text
  text=$(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' /etc/containers/registries.conf 2>/dev/null || true)
  text=$(printf '%s\n' "$text" '' '[[registry]]' "location = \"$GANTRY_REGISTRY\"" 'insecure = true')
  gantry_write_if_changed "$conf" "$text"
  export CONTAINERS_REGISTRIES_CONF=$conf
}

# What the podman service must have been started with: the conf files' names and contents. Podman reads them once,
# so a service started with others (or before they changed) is restarted.
gantry_podman_config_stamp() {
  local var
  for var in CONTAINERS_CONF CONTAINERS_REGISTRIES_CONF; do
    echo "$var=${!var:-}"
    [ -z "${!var:-}" ] || sha256sum "${!var}"
  done
}

# Starts `podman system service` on $state/podman.sock unless that socket already answers, and waits until it does.
# Restarts it when $state/podman.stamp shows it was started with another configuration.
gantry_containers_start_podman() {
  local state=$1 sock=$1/podman.sock stamp
  export DOCKER_HOST=unix://$sock
  stamp=$(gantry_podman_config_stamp)
  if gantry_docker_answers; then
    # A service started from a directory since deleted (an earlier clone's) answers, but its conmon cannot start a
    # container ("Failed to get working directory"): restart it too. Services are now started from /.
    if [ "$(cat "$state/podman.stamp" 2>/dev/null)" = "$stamp" ] &&
      [[ $(readlink "/proc/$(cat "$state/podman.pid" 2>/dev/null)/cwd" 2>/dev/null) != *"(deleted)" ]]; then
      return 0
    fi
    gantry_containers_log "restarting the podman service for its new configuration or a deleted working directory (containers keep running)"
    gantry_containers_stop_podman "$state"
    gantry_docker_answers && gantry_containers_fail "a podman service not started here answers on $sock"
  fi
  rm -f "$sock"
  gantry_containers_log "starting podman system service on $sock (log: $state/podman.log)"
  echo "$stamp" >"$state/podman.stamp"
  gantry_start_detached "$state/podman.log" "$state/podman.pid" gantry_docker_answers 20 \
    podman system service --time=0 "unix://$sock" ||
    gantry_containers_fail "podman system service did not answer on $sock within 20 s"
}

# Starts the command after the first four arguments detached, records its pid in $2 and waits up to $4 seconds for
# the function $3 to succeed; on failure prints the end of its log $1 and returns 1. setsid + nohup: it outlives the
# calling script and its terminal; no inherited stdio, so whoever reads this script's output is not kept waiting for
# its end; the lock's fd is closed for the same reason.
gantry_start_detached() {
  local log=$1 pidfile=$2 answers=$3 seconds=$4 pid i
  shift 4
  # From /: a service keeps its working directory, and the clone that started it may be deleted.
  (cd / && exec setsid nohup "$@" </dev/null >>"$log" 2>&1 {GANTRY_CONTAINERS_LOCK_FD}>&-) &
  pid=$!
  echo "$pid" >"$pidfile"
  for ((i = 0; i < seconds * 5; i++)); do
    "$answers" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  tail -n 20 "$log" >&2
  return 1
}

# Stops the podman service and the registry that setup started, if they still run.
gantry_containers_stop() {
  local state
  state=$(gantry_containers_state_dir)
  gantry_containers_stop_podman "$state"
  gantry_stop_pid "$state/registry.pid" registry "docker-registry serve $state/registry/config.yml"
}

gantry_containers_stop_podman() {
  gantry_stop_pid "$1/podman.pid" "podman service" "system service*$1/podman.sock" &&
    rm -f "$1/podman.sock" "$1/podman.stamp"
}

# Stops the process of pid file $1 ($2 names it in messages) if its command line matches the glob *$3*: the pid may
# have been reused since.
gantry_stop_pid() {
  local file=$1 name=$2 pid i
  pid=$(cat "$file" 2>/dev/null) || { gantry_containers_log "no $name was started here"; return 0; }
  if [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == *$3* ]]; then
    kill "$pid"
    for ((i = 0; i < 50; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    gantry_containers_log "stopped $name $pid"
  else
    gantry_containers_log "$name $pid is not running"
  fi
  rm -f "$file"
}

# Picks the engine: a DOCKER_HOST (or /var/run/docker.sock) that already answers is used as it is, e.g. on a machine
# with Docker; otherwise our own podman service is started. Exports DOCKER_HOST.
gantry_containers_engine() {
  local state=$1
  if [ -n "${DOCKER_HOST:-}" ] && [ "$DOCKER_HOST" != "unix://$state/podman.sock" ]; then
    gantry_docker_answers && { gantry_containers_log "using DOCKER_HOST=$DOCKER_HOST"; return 0; }
    gantry_containers_log "DOCKER_HOST=$DOCKER_HOST does not answer; starting podman instead"
  elif [ -z "${DOCKER_HOST:-}" ] && [ -S /var/run/docker.sock ] &&
    DOCKER_HOST=unix:///var/run/docker.sock gantry_docker_answers; then
    export DOCKER_HOST=unix:///var/run/docker.sock
    gantry_containers_log "using DOCKER_HOST=$DOCKER_HOST"
    return 0
  fi
  gantry_containers_conf "$state"
  gantry_containers_start_podman "$state"
}

# ---------------------------------------------------------------------------------------------------------------------
# Images
#
# Each gantry_recipe_KEY sets recipe_ref (the name configs use), recipe_packages (comma-separated Debian packages on
# top of minbase), recipe_hooks (extra mmdebstrap options) and recipe_changes (Dockerfile instructions applied on
# import). The recipe hash covers all of these plus the mmdebstrap call, so editing any of them rebuilds that image.
# Hooks are shell snippets that mmdebstrap runs with $1 = the rootfs, hence the single quotes.

# The cimg/* job images: $1 the name, $2 packages beyond the base set. uid/gid 3434 and the home layout are those of
# CircleCI's cimg images, which configs and caches rely on. STANDIN_IMAGE lets tests see image env reach steps. Like
# the real ones they have the docker CLI, for setup_remote_docker (see gantry_recipe_remote_docker).
# shellcheck disable=SC2016
gantry_recipe_cimg() {
  recipe_ref=$1
  recipe_packages=bash,coreutils,git,tar,gzip,ca-certificates,procps,openssh-client,curl${2:+,$2}
  recipe_hooks=(--customize-hook='chroot "$1" groupadd -g 3434 circleci'
    --customize-hook='chroot "$1" useradd -m -u 3434 -g 3434 -s /bin/bash circleci'
    --customize-hook='chroot "$1" install -d -o circleci -g circleci /home/circleci/project'
    "$(gantry_docker_cli_hook)")
  recipe_changes=('USER circleci' 'WORKDIR /home/circleci/project' 'ENV HOME=/home/circleci' 'ENV LANG=C.UTF-8'
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "ENV STANDIN_IMAGE=${1%%:*}"
    'CMD ["/bin/bash"]')
}

# The docker CLI alone: /usr/bin/docker out of Debian's docker.io, whose dependencies (dockerd, containerd, runc,
# iptables: ~150 MB) a client does not need. Its API version, 1.41, is the one podman 4.3 serves.
# shellcheck disable=SC2016
gantry_docker_cli_hook() {
  echo '--customize-hook=chroot "$1" sh -ec "cd /tmp; apt-get download -qq docker.io; \
dpkg-deb --fsys-tarfile docker.io_*.deb | tar -x -C / ./usr/bin/docker; rm docker.io_*.deb; \
docker --version >/dev/null"'
}

# Like the real cimg/base it has jq and yq, which orbs expect (path-filtering merges its configs with yq); :current
# is the tag orbs' default executors name.
# shellcheck disable=SC2016
gantry_recipe_base() {
  gantry_recipe_cimg cimg/base:2024.01 jq,yq
  recipe_hooks+=(--customize-hook="cat >\"\$1/usr/local/bin/yq\" <<'GANTRY_EOF'
$(gantry_yq_standin)
GANTRY_EOF
chmod 755 \"\$1/usr/local/bin/yq\"")
  recipe_tags=(cimg/base:current)
}

# /usr/local/bin/yq of cimg/base, before Debian's /usr/bin/yq on the PATH.
gantry_yq_standin() {
  cat <<'EOF'
#!/bin/sh
# Stand-in for mikefarah's yq (github.com/mikefarah/yq), which the real cimg/base carries and Debian does not
# package. It does the one thing CircleCI's path-filtering orb asks of it, merging YAML files deeply, later files
# winning, with Debian's yq (a jq wrapper whose YAML loader expands anchors, as explode does); anything else fails.
set -eu
merge='explode(.) | . as $item ireduce ({}; . * $item )'
if [ "${1:-}" = eval-all ] && [ "${2:-}" = "$merge" ]; then
  shift 2
  exec /usr/bin/yq -y -s 'reduce .[] as $item ({}; . * $item)' "$@"
fi
echo "yq: this image's yq is a stand-in that only merges files: yq eval-all '$merge' FILE..." >&2
exit 1
EOF
}

# Debian's python3 is 3.11: a stand-in under the name configs use. psycopg2 and psql reach a service database.
gantry_recipe_python() {
  gantry_recipe_cimg cimg/python:3.12 python3,python-is-python3,python3-psycopg2,postgresql-client
}

# Stand-in for CircleCI's machine image (machine: image: ubuntu-2204:...): cimg/base plus passwordless sudo for
# circleci. DOCKER_HOST survives sudo, so that `sudo docker ...` reaches the job's remote-docker sidecar too.
# shellcheck disable=SC2016
gantry_recipe_machine() {
  gantry_recipe_cimg ubuntu-2204:2024.01.1 sudo
  recipe_hooks+=(--customize-hook='printf "%s\n" "Defaults env_keep += \"DOCKER_HOST\"" \
"circleci ALL=(ALL) NOPASSWD:ALL" >"$1/etc/sudoers.d/circleci"; chmod 440 "$1/etc/sudoers.d/circleci"')
  recipe_tags=(ubuntu-2204:current)
}

# Service image behaving like the official postgres image: POSTGRES_USER/PASSWORD/DB, listens on 0.0.0.0:5432.
# shellcheck disable=SC2016
gantry_recipe_postgres() {
  recipe_ref=cimg/postgres:15.0
  recipe_packages=bash,postgresql-15
  # Debian's postinst would create a "main" cluster nobody uses; the entrypoint initdb's its own data dir on start.
  local no_cluster='echo "create_main_cluster = false" >"$1/etc/postgresql-common/createcluster.d/gantry.conf"'
  recipe_hooks=(--essential-hook='mkdir -p "$1/etc/postgresql-common/createcluster.d"' --essential-hook="$no_cluster"
    --customize-hook="cat >\"\$1/usr/local/bin/docker-entrypoint.sh\" <<'GANTRY_EOF'
$(gantry_postgres_entrypoint)
GANTRY_EOF
chmod 755 \"\$1/usr/local/bin/docker-entrypoint.sh\""
    # LLVM (and z3, which only LLVM uses) serves postgres' optional JIT alone and is 130 of the image's 370 MB.
    --customize-hook='rm -rf "$1"/usr/lib/x86_64-linux-gnu/libLLVM-* "$1"/usr/lib/x86_64-linux-gnu/libz3.so* \
"$1"/usr/lib/postgresql/15/lib/llvmjit* "$1"/usr/lib/postgresql/15/lib/bitcode')
  recipe_changes=('ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
    'ENV LANG=C.UTF-8' 'ENV PGDATA=/var/lib/postgresql/data' 'ENV STANDIN_IMAGE=cimg/postgres'
    'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]' 'CMD ["postgres"]' 'STOPSIGNAL SIGINT')
}

# The entrypoint of cimg/postgres, written into its rootfs.
gantry_postgres_entrypoint() {
  cat <<'EOF'
#!/bin/bash
# Entrypoint of Gantry's stand-in postgres image, modelled on the official image's: on the first start it initdb's
# $PGDATA as the postgres user with POSTGRES_USER (default postgres), POSTGRES_PASSWORD (none: trust) and
# POSTGRES_DB (default: the user), then runs postgres in the foreground listening on all addresses.
set -euo pipefail
case ${1:-} in -*) set -- postgres "$@" ;; esac
if [ "${1:-}" != postgres ]; then exec "$@"; fi
shift
if [ "$(id -u)" = 0 ]; then
  install -d -o postgres -g postgres -m 700 "$PGDATA"
  install -d -o postgres -g postgres -m 2775 /var/run/postgresql
  HOME=/var/lib/postgresql exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
password=${POSTGRES_PASSWORD:-}
auth=${POSTGRES_HOST_AUTH_METHOD:-}
if [ -z "$auth" ]; then if [ -n "$password" ]; then auth=scram-sha-256; else auth=trust; fi; fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$password" >"$pwfile"
  initdb -D "$PGDATA" --username="$user" --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host="$auth" \
    ${password:+--pwfile="$pwfile"} >/dev/null
  rm -f "$pwfile"
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    # A server on the Unix socket only, so that nobody connects before the database exists.
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 -q --username="$user" --dbname=postgres --set=db="$db" <<<'CREATE DATABASE :"db";'
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "docker-entrypoint: initialised $PGDATA (user $user, database $db, host auth $auth)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' -c jit=off "$@"
EOF
}

# The remote-docker sidecar: a job's own Docker Engine API, for setup_remote_docker and machine jobs. The agent runs
# it in the network namespace of the job's primary container, where it serves on tcp://127.0.0.1:2375. It must not be
# privileged (a privileged engine lets a job mount the host's disk): the engine is a rootless podman of the user
# podman (2375), its containers in a user namespace of podman's subordinate ids, which newuidmap and newgidmap map
# with file capabilities (cap_setuid/cap_setgid) instead of the setuid bit, which the kernel refuses in a sidecar
# without CAP_SYS_ADMIN. No setuid or setgid file is left. The sidecar itself runs in a user namespace of its own
# (podman's userns=auto), without capabilities; bin/lib/remote-docker-check.sh has its create options and proves
# them. Images and containers go to native overlayfs on the image's VOLUME (an anonymous volume: remove the sidecar
# with its volumes). Containers get podman's bridge, which slirp4netns links to the job's network, so published ports
# reach the job's localhost; they run without cgroup limits of their own (rootless podman on cgroup v1 sets none),
# within the sidecar's cgroup.
# shellcheck disable=SC2016
gantry_recipe_remote_docker() {
  recipe_ref=gantry/remote-docker:1
  recipe_packages=podman,runc,conmon,catatonit,uidmap,libcap2-bin,netavark,aardvark-dns,slirp4netns,iptables
  local home=/home/podman
  recipe_hooks=(--customize-hook='chroot "$1" groupadd -g 2375 podman'
    --customize-hook='chroot "$1" useradd -m -u 2375 -g 2375 -s /bin/sh podman'
    --customize-hook='echo podman:1000000:65536 >"$1/etc/subuid"; cp "$1/etc/subuid" "$1/etc/subgid"'
    --customize-hook='find "$1" -xdev -type f -perm /6000 -exec chmod ug-s {} +'
    --customize-hook='chroot "$1" setcap cap_setuid=ep /usr/bin/newuidmap'
    --customize-hook='chroot "$1" setcap cap_setgid=ep /usr/bin/newgidmap'
    --customize-hook="chroot \"\$1\" install -d -o podman -g podman $home/.local $home/.local/share \
$home/.local/share/containers"
    --customize-hook='chroot "$1" install -d -o podman -g podman -m 700 /run/user/2375' --skip=cleanup/run
    --customize-hook="$(gantry_remote_docker_file /etc/containers/containers.conf gantry_remote_docker_conf)"
    --customize-hook="$(gantry_remote_docker_file /etc/containers/storage.conf gantry_remote_docker_storage)"
    --customize-hook="$(gantry_remote_docker_file /usr/local/bin/gantry-remote-docker gantry_remote_docker_entrypoint)"
    --customize-hook='chmod 755 "$1/usr/local/bin/gantry-remote-docker"')
  recipe_changes=('USER podman' "WORKDIR $home" "ENV HOME=$home" 'ENV XDG_RUNTIME_DIR=/run/user/2375'
    'ENV LANG=C.UTF-8' "VOLUME $home/.local/share/containers"
    'ENTRYPOINT ["/usr/bin/catatonit", "--", "/usr/local/bin/gantry-remote-docker"]')
}

# A hook that writes the output of function $2 to $1 in the rootfs.
gantry_remote_docker_file() {
  printf '%s\n' "cat >\"\$1$1\" <<'GANTRY_EOF'" "$("$2")" GANTRY_EOF
}

gantry_remote_docker_conf() {
  cat <<'EOF'
# containers.conf of gantry/remote-docker's nested engine (rootless podman, see bin/lib/containers.sh).
[containers]
# Builds' RUN steps use the job's network namespace. (Containers created through the Docker API get podman's bridge,
# behind slirp4netns, whatever this says: podman 4.3 maps the Docker CLI's NetworkMode "default" to "bridge".)
netns = "host"
# The sidecar has no CAP_SYS_ADMIN, so its seccomp profile refuses sethostname: containers keep its UTS namespace.
utsns = "host"
log_driver = "k8s-file"
[network]
network_backend = "netavark"
# Docker's bridge subnet; podman's default, 10.88.0.0/16, is that of the outer engine's containers.
default_subnet = "172.17.0.0/16"
[engine]
# crun refuses the hybrid cgroup v1 of Gantry's machines. No systemd here: cgroupfs, events to a file.
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
# slirp4netns connects the bridge to the job's network namespace; 10.0.2.2 reaches the job's localhost.
network_cmd_options = ["allow_host_loopback=true"]
EOF
}

gantry_remote_docker_storage() {
  cat <<'EOF'
# storage.conf of gantry/remote-docker: rootless podman keeps its graph in ~/.local/share/containers, the image's
# VOLUME. Native overlayfs works there in a user namespace (Linux >= 5.11); not on the container's own overlay root.
[storage]
driver = "overlay"
EOF
}

gantry_remote_docker_entrypoint() {
  cat <<'EOF'
#!/bin/bash
# Entrypoint of gantry/remote-docker (under catatonit, which reaps the conmons of ended containers): podman serving
# the Docker Engine API on GANTRY_REMOTE_DOCKER_URL (default tcp://127.0.0.1:2375), as the unprivileged user podman.
# Prints "gantry-remote-docker: ready on URL" once the API answers /_ping, for whoever waits on the logs (the agent
# cannot exec in the sidecar: runc cannot join its user namespace and then the primary's network namespace).
set -euo pipefail
url=${GANTRY_REMOTE_DOCKER_URL:-tcp://127.0.0.1:2375}
address=${url#tcp://}
# Podman's rootless bridge network wants its runtime directory under /run; it is the image's, so a restarted sidecar
# finds the state of its previous run there.
find "$XDG_RUNTIME_DIR" -mindepth 1 -delete

answers() {
  local reply
  exec 3<>"/dev/tcp/${address%:*}/${address##*:}" || return 1
  printf 'GET /_ping HTTP/1.0\r\n\r\n' >&3
  reply=$(cat <&3)
  exec 3>&-
  [[ $reply == *$'\r\n\r\nOK' ]]
}

podman system service --time=0 "$url" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null || true' TERM INT
until answers 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { wait "$pid"; exit; }
  sleep 0.05
done
echo "gantry-remote-docker: ready on $url"
# wait returns early when a signal is trapped; the service's own end is what ends the container.
while kill -0 "$pid" 2>/dev/null; do wait "$pid" || true; done
EOF
}

# Builds the rootfs tarball of the current recipe to $1 with mmdebstrap, as root. Docs, man pages and translations
# are left out to keep images small, but not with --dpkgopt: mmdebstrap would then pipe every essential package
# through mmtarfilter, one Python start each (~45 s per image). So the excludes start after the essential set is in,
# and what that set brought is deleted at the end. force-unsafe-io (no fsync per file) as in Docker's Debian images.
# shellcheck disable=SC2016
gantry_image_rootfs() {
  local out=$1 mirror=${GANTRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  local dirs='usr/share/doc usr/share/man usr/share/locale usr/share/info usr/share/lintian'
  mmdebstrap --variant=minbase --format=tar --quiet \
    --include="$recipe_packages" \
    --aptopt='APT::Install-Recommends "false"' \
    --essential-hook="{ echo force-unsafe-io; for d in $dirs; do echo \"path-exclude=/\$d/*\"; done; } \
>\"\$1/etc/dpkg/dpkg.cfg.d/90gantry\"" \
    "${recipe_hooks[@]}" \
    --customize-hook="for d in $dirs; do rm -rf \"\$1/\$d\"/*; done" \
    "$GANTRY_DEBIAN_SUITE" "$out" \
    "deb $mirror $GANTRY_DEBIAN_SUITE main" "deb $mirror $GANTRY_DEBIAN_SUITE-updates main" \
    "deb http://deb.debian.org/debian-security $GANTRY_DEBIAN_SUITE-security main" </dev/null
}

gantry_recipe_hash() {
  {
    echo "$GANTRY_DEBIAN_SUITE" "$recipe_ref" "$recipe_packages"
    printf '%s\n' "${recipe_hooks[@]}" "${recipe_changes[@]}"
    declare -f gantry_image_rootfs
  } | sha256sum | cut -c1-16
}

# Prints the recipe label of image $1 in the engine, or nothing when the engine does not have it.
gantry_image_label() {
  gantry_docker_api "/images/$1/json" 2>/dev/null | sed -n 's/.*"dev\.gantry\.recipe": *"\([0-9a-f]*\)".*/\1/p'
}

gantry_image_id() {
  gantry_docker_api "/images/$1/json" 2>/dev/null | sed -n 's/^{ *"Id": *"\([^"]*\)".*/\1/p'
}

gantry_urlencode() {
  local LC_ALL=C s=$1 out="" c i
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      [a-zA-Z0-9._~-]) out+=$c ;;
      *) printf -v c '%%%02X' "'$c" && out+=$c ;;
    esac
  done
  echo "$out"
}

# The instructions that Docker's import applies (its "changes"; Docker 20.10 refuses any other, e.g. "stopsignal is
# not a valid change command"); Podman's import takes every instruction.
GANTRY_IMPORT_CHANGES=" CMD ENTRYPOINT ENV EXPOSE HEALTHCHECK LABEL ONBUILD USER VOLUME WORKDIR "

# Imports rootfs tarball $1 as recipe_ref with recipe_changes and the recipe label, through the Engine API (`docker
# import`), so the same code serves podman and Docker. repo carries the tag: podman 4.3 ignores the tag parameter.
# Instructions that import cannot apply (STOPSIGNAL) are applied by a build FROM the import, on both engines.
gantry_image_import() {
  local tar=$1 hash=$2 query change rest=() out
  query="fromSrc=-&repo=$(gantry_urlencode "$recipe_ref")"
  for change in "${recipe_changes[@]}" "LABEL dev.gantry.recipe=$hash"; do
    if [[ $GANTRY_IMPORT_CHANGES == *" ${change%% *} "* ]]; then
      query+="&changes=$(gantry_urlencode "$change")"
    else
      rest+=("$change")
    fi
  done
  out=$(gantry_docker_api "/images/create?$query" --fail-with-body -X POST -H 'Content-Type: application/x-tar' \
    -T "$tar") || { echo "$out" >&2; return 1; }
  [ "${#rest[@]}" -eq 0 ] || gantry_image_build_on "$recipe_ref" "${rest[@]}"
}

# Rebuilds image $1 under its name as FROM $1 plus the Dockerfile instructions $2...: metadata only, no new files,
# the labels inherited. The build streams JSON with status 200, errors included.
gantry_image_build_on() {
  local ref=$1 dir out rc=0
  shift
  dir=$(mktemp -d)
  printf '%s\n' "FROM $ref" "$@" >"$dir/Dockerfile"
  out=$(tar -C "$dir" -c Dockerfile | gantry_docker_api "/build?t=$(gantry_urlencode "$ref")&q=1&rm=1" \
    --fail-with-body -X POST -H 'Content-Type: application/x-tar' -T -) || rc=$?
  rm -rf "$dir"
  if [ "$rc" != 0 ] || [[ $out == *'"error'* ]]; then
    echo "$out" >&2
    gantry_containers_fail "applying ${*} to $ref failed"
  fi
}

# Makes the engine have image KEY built from its current recipe: nothing when it has, an import when the cache has
# the tarball, else an mmdebstrap build first. The superseded image is removed unless a container still uses it.
gantry_image_ensure() {
  local key=$1 recipe_ref recipe_packages recipe_hooks=() recipe_changes=() recipe_tags=() hash cache tar old
  "gantry_recipe_$key"
  hash=$(gantry_recipe_hash)
  if [ "$(gantry_image_label "$recipe_ref")" = "$hash" ]; then
    gantry_image_tag "$recipe_ref" "${recipe_tags[@]}"
    return 0
  fi
  cache=$(gantry_image_cache_dir)
  tar=$cache/${recipe_ref//[\/:]/_}-$hash.tar
  if [ ! -s "$tar" ]; then
    # mmdebstrap's modes without root (unshare, fakechroot) do not work on this kind of machine.
    [ "$(id -u)" = 0 ] || gantry_containers_fail "building $recipe_ref needs root (mmdebstrap): run this as root"
    gantry_containers_log "building $recipe_ref (mmdebstrap, about a minute)"
    mkdir -p "$cache"
    gantry_image_rootfs "$tar.part" || { rm -f "$tar.part"; gantry_containers_fail "building $recipe_ref failed"; }
    mv "$tar.part" "$tar"
    # Older tarballs of this image are of recipes no longer current.
    find "$cache" -maxdepth 1 -name "${recipe_ref//[\/:]/_}-*.tar" ! -name "${tar##*/}" -delete
  fi
  old=$(gantry_image_id "$recipe_ref")
  gantry_containers_log "importing $recipe_ref from $tar"
  gantry_image_import "$tar" "$hash"
  [ "$(gantry_image_label "$recipe_ref")" = "$hash" ] ||
    gantry_containers_fail "$recipe_ref was imported but the engine does not show label $hash"
  gantry_image_tag "$recipe_ref" "${recipe_tags[@]}"
  [ -z "$old" ] || gantry_docker_api "/images/$old" -X DELETE >/dev/null 2>&1 || true
}

# Gives image $1 the further names $2...: those that name another image (or none) are (re)tagged.
gantry_image_tag() {
  local ref=$1 id tag
  shift
  id=$(gantry_image_id "$ref")
  for tag in "$@"; do
    [ "$(gantry_image_id "$tag")" != "$id" ] || continue
    gantry_docker_api "/images/$id/tag?repo=$(gantry_urlencode "${tag%:*}")&tag=$(gantry_urlencode "${tag##*:}")" \
      --fail-with-body -X POST >/dev/null
  done
}

# Ensures every image, GANTRY_IMAGE_JOBS at once (default 3: each mmdebstrap is independent, and three together
# take ~2 minutes on 2 cores instead of ~3.5 one after the other).
gantry_containers_images() {
  local jobs=${GANTRY_IMAGE_JOBS:-3} key pids=() failed=0
  for key in "${GANTRY_IMAGES[@]}"; do
    gantry_image_ensure "$key" &
    pids+=("$!")
    if [ "${#pids[@]}" -ge "$jobs" ]; then
      gantry_wait_all "${pids[@]}" || failed=1
      pids=()
    fi
  done
  gantry_wait_all "${pids[@]}" || failed=1
  [ "$failed" = 0 ] || gantry_containers_fail "some images could not be built or loaded (see above)"
}

# Waits for every pid given; fails when any of them failed.
gantry_wait_all() {
  local pid rc=0
  for pid in "$@"; do wait "$pid" || rc=1; done
  return "$rc"
}

# ---------------------------------------------------------------------------------------------------------------------
# Registry
#
# Debian's docker-registry (the CNCF distribution registry) on GANTRY_REGISTRY, plain HTTP, htpasswd auth, its storage
# in $state/registry (under /run: lost on reboot, when setup pushes the image again). It holds GANTRY_REGISTRY_IMAGE,
# whose digest setup writes to $state/registry-digest (tests pull it by digest too); the engine is left without it.

gantry_registry_curl() {
  curl -sS --max-time 10 -u "$GANTRY_REGISTRY_USER:$GANTRY_REGISTRY_PASSWORD" "$@"
}

gantry_registry_answers() {
  gantry_registry_curl --fail -o /dev/null "http://$GANTRY_REGISTRY/v2/" 2>/dev/null
}

gantry_registry_config() {
  cat <<EOF
version: 0.1
log:
  level: warn
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $1/data
http:
  addr: $GANTRY_REGISTRY
auth:
  htpasswd:
    realm: gantry-test-registry
    path: $1/htpasswd
EOF
}

# Starts the registry unless it answers to our login, and waits until it does.
gantry_registry_start() {
  local state=$1 dir=$1/registry
  gantry_registry_answers && return 0
  mkdir -p "$dir/data"
  gantry_write_if_changed "$dir/config.yml" "$(gantry_registry_config "$dir")"
  htpasswd -vb "$dir/htpasswd" "$GANTRY_REGISTRY_USER" "$GANTRY_REGISTRY_PASSWORD" >/dev/null 2>&1 ||
    htpasswd -cbB "$dir/htpasswd" "$GANTRY_REGISTRY_USER" "$GANTRY_REGISTRY_PASSWORD" 2>/dev/null
  gantry_containers_log "starting docker-registry on $GANTRY_REGISTRY (log: $state/registry.log)"
  gantry_start_detached "$state/registry.log" "$state/registry.pid" gantry_registry_answers 10 \
    docker-registry serve "$dir/config.yml" ||
    gantry_containers_fail "docker-registry did not answer on $GANTRY_REGISTRY within 10 s"
}

# Prints the digest of manifest $1:$2 in the registry, nothing when it has none.
gantry_registry_digest() {
  gantry_registry_curl --fail -I 2>/dev/null \
    -H 'Accept: application/vnd.oci.image.manifest.v1+json' \
    -H 'Accept: application/vnd.docker.distribution.manifest.v2+json' \
    "http://$GANTRY_REGISTRY/v2/$1/manifests/$2" | tr -d '\r' | sed -n 's/^docker-content-digest: *//Ip' || true
}

# The X-Registry-Auth header of the Engine API: base64url of the login, as the Docker client sends it.
gantry_registry_auth_header() {
  printf 'X-Registry-Auth: %s' "$(printf '{"username":"%s","password":"%s","serveraddress":"%s"}' \
    "$GANTRY_REGISTRY_USER" "$GANTRY_REGISTRY_PASSWORD" "$GANTRY_REGISTRY" | base64 -w0 | tr '+/' '-_')"
}

# Makes image $1:$2 in the engine: cimg/base plus a label, committed from a container. Not cimg/base itself: podman
# finds an image by digest whatever the repository name, so cimg/base, pushed, would be found locally by
# 127.0.0.1:5000/gantry/private@DIGEST and never pulled.
gantry_registry_image() {
  local id change rc=0
  id=$(gantry_docker_api /containers/create --fail-with-body -X POST -H 'Content-Type: application/json' \
    -d '{"Image":"cimg/base:2024.01","Cmd":["true"]}' | sed -n 's/^{ *"Id": *"\([^"]*\)".*/\1/p')
  [ -n "$id" ] || gantry_containers_fail "could not create a container of cimg/base:2024.01"
  change=$(gantry_urlencode "LABEL dev.gantry.registry-image=$1:$2")
  # Podman wants a body (the container config to merge), if only an empty one.
  gantry_docker_api "/commit?container=$id&repo=$(gantry_urlencode "$1")&tag=$2&changes=$change" \
    --fail-with-body -X POST -H 'Content-Type: application/json' -d '{}' >/dev/null || rc=$?
  gantry_docker_api "/containers/$id" -X DELETE >/dev/null
  return "$rc"
}

# Pushes GANTRY_REGISTRY_IMAGE through the engine unless the registry has it, then removes it from the engine, so
# that a job naming it must pull it. The push reports errors in its JSON stream, with status 200.
gantry_registry_seed() {
  local state=$1 repo=$GANTRY_REGISTRY/${GANTRY_REGISTRY_IMAGE%:*} tag=${GANTRY_REGISTRY_IMAGE##*:} digest out
  digest=$(gantry_registry_digest "${GANTRY_REGISTRY_IMAGE%:*}" "$tag")
  if [ -z "$digest" ]; then
    gantry_containers_log "pushing $repo:$tag, made from cimg/base:2024.01"
    gantry_registry_image "$repo" "$tag"
    out=$(gantry_docker_api "/images/$(gantry_urlencode "$repo")/push?tag=$tag" --fail-with-body -X POST \
      -H "$(gantry_registry_auth_header)") || { echo "$out" >&2; false; }
    gantry_docker_api "/images/$(gantry_urlencode "$repo:$tag")" -X DELETE >/dev/null 2>&1 || true
    digest=$(gantry_registry_digest "${GANTRY_REGISTRY_IMAGE%:*}" "$tag")
    [ -n "$digest" ] || { echo "$out" >&2; gantry_containers_fail "pushing $repo:$tag failed"; }
  fi
  gantry_containers_log "registry $GANTRY_REGISTRY has $GANTRY_REGISTRY_IMAGE at $digest"
  gantry_write_if_changed "$state/registry-digest" "$digest"
}

gantry_containers_registry() {
  gantry_registry_start "$1"
  gantry_registry_seed "$1"
}

# ---------------------------------------------------------------------------------------------------------------------
# Entry points

# Runs $1 (a function of this file) under a lock on the state dir, so that concurrent callers build nothing twice.
gantry_containers_locked() {
  local state
  state=$(gantry_containers_state_dir)
  mkdir -p "$state"
  exec {GANTRY_CONTAINERS_LOCK_FD}>"$state/lock"
  flock -w 1200 "$GANTRY_CONTAINERS_LOCK_FD" || gantry_containers_fail "timed out waiting for $state/lock"
  "$@" "$state"
  exec {GANTRY_CONTAINERS_LOCK_FD}>&-
}

# Everything: tools, engine, images, registry. Exports DOCKER_HOST (and CONTAINERS_CONF for podman).
gantry_containers_setup() {
  gantry_containers_need_tools
  gantry_containers_locked gantry_containers_setup_in
}

gantry_containers_setup_in() {
  gantry_containers_engine "$1"
  gantry_containers_tun
  gantry_containers_subids
  gantry_containers_images
  gantry_containers_registry "$1"
}

# The remote-docker sidecar runs in a user namespace of podman's --userns=auto, whose host ids podman takes from the
# subordinate ranges of the user "containers" (no such account is needed): the range podman's documentation gives,
# above any uid in use, is added to /etc/subuid and /etc/subgid when they have none.
gantry_containers_subids() {
  local file
  for file in /etc/subuid /etc/subgid; do
    grep -q '^containers:' "$file" 2>/dev/null && continue
    if [ "$(id -u)" != 0 ]; then
      gantry_containers_log "$file has no range for containers: remote docker sidecars cannot start (as root: \
echo containers:2147483647:2147483648 >>$file)"
      continue
    fi
    echo containers:2147483647:2147483648 >>"$file"
  done
}

# gantry/remote-docker's podman connects its containers' bridge to the job's network with slirp4netns, which opens
# /dev/net/tun (the sidecar gets it as a device, with the host node's mode). Debian's udev makes the node 0666, as
# opening it grants nothing (a tap needs CAP_NET_ADMIN over its network namespace); without udev it is root's 0600.
gantry_containers_tun() {
  [ -c /dev/net/tun ] && [ "$(stat -c %a /dev/net/tun)" = 666 ] && return 0
  if [ "$(id -u)" != 0 ]; then
    gantry_containers_log "/dev/net/tun is not mode 0666: remote docker's containers get no network \
(as root: chmod 666 /dev/net/tun)"
    return 0
  fi
  [ -c /dev/net/tun ] || { mkdir -p /dev/net && mknod /dev/net/tun c 10 200; }
  chmod 666 /dev/net/tun
}

# ---------------------------------------------------------------------------------------------------------------------
# Docker Engine (optional: `bin/containers docker-engine`; never part of setup, bin/test or CI)
#
# Debian's docker.io (dockerd 20.10 with the containerd it starts itself) beside the podman service, so that the
# executor's tests can run against Docker's own engine too. It shares nothing with podman or with a Docker that the
# machine may run on /var/run/docker.sock: its own socket, exec root (which holds its containerd's sockets and state),
# pid file, log and daemon.json under GANTRY_DOCKERD_RUN, its images and containers under GANTRY_DOCKERD_DATA, its
# default bridge (docker0) on GANTRY_DOCKERD_BIP, away from podman's 10.88.0.0/16. Its iptables rules stay on (as
# netavark's do for podman): they only match docker0 (FORWARD's policy stays ACCEPT, netavark's chain comes after
# them) and masquerade 10.99.0.0/24, without which containers reach no DNS server: every name missing from their
# /etc/hosts then takes 10 s to fail (getent hosts db tries AAAA through DNS first). runc and cgroupfs as for podman
# (no systemd here). dockerd still makes /run/docker/plugins and /etc/docker/key.json, paths it does not let one
# choose, and leaves its iptables chains when it stops.

GANTRY_DOCKERD_RUN=${GANTRY_DOCKERD_RUN:-/run/gantry-docker}
GANTRY_DOCKERD_DATA=${GANTRY_DOCKERD_DATA:-/var/lib/gantry-docker}
GANTRY_DOCKERD_BIP=${GANTRY_DOCKERD_BIP:-10.99.0.1/24}

# dockerd's flags, one a line.
gantry_dockerd_args() {
  local run=$GANTRY_DOCKERD_RUN
  printf '%s\n' -H "unix://$run/docker.sock" --data-root "$GANTRY_DOCKERD_DATA" --exec-root "$run/exec" \
    --pidfile "$run/dockerd.pid" --config-file "$run/daemon.json" --bip "$GANTRY_DOCKERD_BIP" \
    --exec-opt native.cgroupdriver=cgroupfs --storage-driver overlay2 --iptables=true
}

# Starts dockerd unless its socket answers, and waits until it does; restarts it when it was started with other
# flags. Exports DOCKER_HOST.
gantry_dockerd_start() {
  local run=$GANTRY_DOCKERD_RUN args stamp
  mapfile -t args < <(gantry_dockerd_args)
  stamp="dockerd ${args[*]}"
  mkdir -p "$run" "$GANTRY_DOCKERD_DATA"
  export DOCKER_HOST=unix://$run/docker.sock
  if gantry_docker_answers; then
    [ "$(cat "$run/dockerd.stamp" 2>/dev/null)" != "$stamp" ] || return 0
    gantry_containers_log "restarting dockerd for its new flags (its containers stop)"
  fi
  # One of ours that does not answer (hung, or started with other flags) is stopped first: dockerd refuses to
  # start while the process of its pid file lives.
  gantry_dockerd_stop
  gantry_docker_answers && gantry_containers_fail "a dockerd not started here answers on $run/docker.sock"
  rm -f "$run/docker.sock"
  gantry_write_if_changed "$run/daemon.json" '{}'
  gantry_containers_log "starting dockerd on $run/docker.sock (log: $run/dockerd.log)"
  echo "$stamp" >"$run/dockerd.stamp"
  # dockerd writes its own pid file, and would take one written here first for another dockerd's.
  gantry_start_detached "$run/dockerd.log" /dev/null gantry_docker_answers 30 dockerd "${args[@]}" ||
    gantry_containers_fail "dockerd did not answer on $run/docker.sock within 30 s"
}

# Stops the dockerd of GANTRY_DOCKERD_RUN if it runs (it stops its containers and its containerd first).
gantry_dockerd_stop() {
  local run=$GANTRY_DOCKERD_RUN pid i
  pid=$(cat "$run/dockerd.pid" 2>/dev/null) || return 0
  if [[ $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) == "dockerd -H unix://$run/docker.sock "* ]]; then
    kill "$pid"
    for ((i = 0; i < 150; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
    kill -0 "$pid" 2>/dev/null && gantry_containers_fail "dockerd $pid did not stop within 30 s"
    gantry_containers_log "stopped dockerd $pid"
  fi
  rm -f "$run/dockerd.pid" "$run/dockerd.stamp"
}

# Everything the executor's tests need, on Docker's engine: docker.io (without its recommends: apparmor, needrestart,
# cgroupfs-mount), dockerd, /dev/net/tun for remote Docker, the images (imported from the same cache as podman's),
# and the test registry with the containers.conf beside which ContainerExecutorIT finds its state. Exports
# DOCKER_HOST and, for that, CONTAINERS_CONF and CONTAINERS_REGISTRIES_CONF (both only ever read by podman).
gantry_containers_docker_engine() {
  [ "$(id -u)" = 0 ] || gantry_containers_fail "bin/containers docker-engine runs as root (apt-get, dockerd)"
  gantry_containers_need_tools --no-install-recommends dockerd:docker.io
  gantry_containers_need_tools mmdebstrap:mmdebstrap curl:curl flock:util-linux docker-registry:docker-registry \
    htpasswd:apache2-utils
  gantry_containers_locked gantry_containers_docker_engine_in
}

gantry_containers_docker_engine_in() {
  gantry_dockerd_start
  gantry_containers_tun
  gantry_containers_images
  gantry_containers_conf "$1"
  gantry_containers_registry "$1"
}
