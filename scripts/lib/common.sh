# Shared by floe's scripts: locate the repository and a JDK >= 22.
# Source it; it sets FLOE_ROOT, JAVA_HOME and PATH, or exits with a clear message.

FLOE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
FLOE_MIN_JAVA=22
FLOE_JVM_FLAGS=(--enable-native-access=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED)

# Prints the feature version (e.g. 25) of the JDK at $1, or nothing.
floe_java_version() {
  local java="$1/bin/java"
  [[ -x "$java" && -x "$1/bin/javac" ]] || return 0
  "$java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9]*\).*/\1/p' | head -n1
}

# JAVA_HOME if it is new enough, else the newest JDK under /usr/lib/jvm.
floe_find_jdk() {
  local v
  if [[ -n "${JAVA_HOME:-}" ]]; then
    v="$(floe_java_version "$JAVA_HOME")"
    if [[ -n "$v" && "$v" -ge "$FLOE_MIN_JAVA" ]]; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  local best="" best_v=0 dir
  for dir in /usr/lib/jvm/*/; do
    dir="${dir%/}"
    [[ -L "$dir" ]] && continue
    v="$(floe_java_version "$dir")"
    if [[ -n "$v" && "$v" -ge "$FLOE_MIN_JAVA" && "$v" -gt "$best_v" ]]; then
      best="$dir"
      best_v="$v"
    fi
  done
  [[ -n "$best" ]] && echo "$best"
}

floe_use_jdk() {
  local jdk
  jdk="$(floe_find_jdk)"
  if [[ -z "$jdk" ]]; then
    echo "floe: no JDK >= $FLOE_MIN_JAVA found (JAVA_HOME=${JAVA_HOME:-unset}; looked in /usr/lib/jvm)." >&2
    echo "floe: install one (e.g. Temurin 25) or point JAVA_HOME at it." >&2
    exit 1
  fi
  export JAVA_HOME="$jdk"
  export PATH="$JAVA_HOME/bin:$PATH"
  # JDK 24+ warns when Arrow Java uses sun.misc.Unsafe; allow it quietly where the flag exists.
  if [[ "$(floe_java_version "$JAVA_HOME")" -ge 24 ]]; then
    FLOE_JVM_FLAGS+=(--sun-misc-unsafe-memory-access=allow)
  fi
}

floe_require() {
  local tool
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "floe: '$tool' is required but not on PATH" >&2
      exit 1
    fi
  done
}

# Builds flink-integration (and what it needs) and prints the classpath of a JVM running its
# test classes: the Flink jobs, benchmarks and examples whose Flink jars are "provided".
# FLOE_SKIP_CARGO=1 reuses the native library already built. $1 names the caller in messages.
floe_flink_classpath() {
  local caller="$1" log module
  local skip_cargo=()
  [[ -n "${FLOE_SKIP_CARGO:-}" ]] && skip_cargo=(-Dfloe.skipCargo=true)
  log="$(mktemp -t "floe-$caller-build.XXXXXX.log")"
  echo "$caller: building flink-integration and its classpath ..." >&2
  if ! (cd "$FLOE_ROOT" &&
        mvn -B -ntp -q "${skip_cargo[@]}" -DskipTests install -pl flink-integration -am &&
        mvn -B -ntp -q -pl flink-integration dependency:build-classpath -Dmdep.includeScope=test \
          -Dmdep.outputFile=target/test.classpath) >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "$caller: the build failed; full log: $log" >&2
    exit 1
  fi
  rm -f "$log"
  module="$FLOE_ROOT/flink-integration"
  echo "$module/target/test-classes:$module/target/classes:$(cat "$module/target/test.classpath")"
}
