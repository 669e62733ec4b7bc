# shellcheck shell=bash
# Sourced by bin/gantry and bin/test. Finds a JDK >= 21 and exports it as JAVA_HOME; on JDK 24+ also adds
# --sun-misc-unsafe-memory-access=allow to MAVEN_OPTS, which silences Maven's own warnings about sun.misc.Unsafe.

GANTRY_MIN_JAVA=21

# Prints the feature version (17, 21, 25, ...) of the JDK at $1; fails when $1 holds no working java and javac.
gantry_java_major() {
  local home=$1 line version
  [ -x "$home/bin/java" ] && [ -x "$home/bin/javac" ] || return 1
  line=$("$home/bin/java" -version 2>&1 | grep -m1 ' version "') || return 1
  version=${line#*version \"}
  version=${version%%\"*}
  version=${version#1.}         # 1.8.0_392 -> 8.0_392
  version=${version%%[!0-9]*}   # 25.0.1 -> 25, 21-ea -> 21
  [ -n "$version" ] || return 1
  echo "$version"
}

# Exports JAVA_HOME: $JAVA_HOME when it is a JDK >= 21, else the highest-version JDK >= 21 under /usr/lib/jvm, else
# the JDK of the java on PATH if that is >= 21. Sets GANTRY_JAVA_MAJOR. Fails with a message when there is none.
gantry_find_java() {
  local best="" best_major=0 home major
  if [ -n "${JAVA_HOME:-}" ] && major=$(gantry_java_major "$JAVA_HOME") && [ "$major" -ge "$GANTRY_MIN_JAVA" ]; then
    best=$JAVA_HOME
    best_major=$major
  else
    for home in /usr/lib/jvm/*/; do
      home=${home%/}
      major=$(gantry_java_major "$home") || continue
      if [ "$major" -ge "$GANTRY_MIN_JAVA" ] && [ "$major" -gt "$best_major" ]; then
        best=$home
        best_major=$major
      fi
    done
    if [ -z "$best" ] && command -v java >/dev/null 2>&1; then
      home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
      if major=$(gantry_java_major "$home") && [ "$major" -ge "$GANTRY_MIN_JAVA" ]; then
        best=$home
        best_major=$major
      fi
    fi
  fi
  if [ -z "$best" ]; then
    echo "gantry: no JDK >= $GANTRY_MIN_JAVA found (JAVA_HOME=${JAVA_HOME:-unset}, /usr/lib/jvm, PATH)." \
      "Install one (e.g. Temurin 25) or point JAVA_HOME at it." >&2
    return 1
  fi
  export JAVA_HOME=$best
  GANTRY_JAVA_MAJOR=$best_major
  if [ "$best_major" -ge 24 ]; then
    case " ${MAVEN_OPTS:-} " in
      *" --sun-misc-unsafe-memory-access=allow "*) ;;
      *) export MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }--sun-misc-unsafe-memory-access=allow" ;;
    esac
  fi
}

# Fails with a message when Maven is not on PATH.
gantry_need_maven() {
  command -v mvn >/dev/null 2>&1 && return 0
  echo "gantry: Maven (mvn) is not on PATH; install it (e.g. apt-get install maven)." >&2
  return 1
}
