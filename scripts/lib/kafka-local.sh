# floe's local Kafka broker (the kafka-local module) for scripts: `floe kafka start|stop|status`.
# Source after common.sh and floe_use_jdk.

FLOE_KAFKA_DEFAULT_DIR="$FLOE_ROOT/.floe/kafka"
FLOE_KAFKA_CLASSES="$FLOE_ROOT/kafka-local/target/classes"
# Written by the module's build: the broker's jars (kafka_2.13 and everything it needs, kafka-clients included).
FLOE_KAFKA_CLASSPATH_FILE="$FLOE_KAFKA_CLASSES/dev/floe/kafka/broker.classpath"

floe_kafka_needs_build() {
  [[ ! -f "$FLOE_KAFKA_CLASSPATH_FILE" ]] && return 0
  [[ -n "$(find "$FLOE_ROOT/kafka-local/src" "$FLOE_ROOT/kafka-local/pom.xml" "$FLOE_ROOT/pom.xml" \
        -newer "$FLOE_KAFKA_CLASSPATH_FILE" -print -quit)" ]]
}

# Compiles kafka-local and resolves the broker's jars when missing or stale (and floe-corpus, its one floe dependency).
floe_kafka_build() {
  floe_kafka_needs_build || return 0
  floe_require mvn
  echo "floe: building kafka-local (first use or sources changed)..." >&2
  local log
  log="$(mktemp -t floe-kafka-build.XXXXXX.log)"
  if ! (cd "$FLOE_ROOT" && mvn -B -ntp -q -Dfloe.skipCargo=true -DskipTests package -pl kafka-local -am) >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "floe: kafka-local build failed; full log: $log" >&2
    exit 1
  fi
  rm -f "$log"
  # Maven may leave an unchanged classpath file as it was; mark it fresh for floe_kafka_needs_build.
  touch "$FLOE_KAFKA_CLASSPATH_FILE"
}

# floe kafka start|stop|status [--dir DIR]
floe_kafka() {
  local usage="usage: floe kafka start|stop|status [--dir DIR]   (default DIR: $FLOE_KAFKA_DEFAULT_DIR)"
  local command="${1:-}" dir="$FLOE_KAFKA_DEFAULT_DIR"
  case "$command" in
    start|stop|status) shift ;;
    -h|--help|help) echo "$usage"; return 0 ;;
    *) echo "$usage" >&2; return 2 ;;
  esac
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --dir) [[ $# -ge 2 ]] || { echo "$usage" >&2; return 2; }; dir="$2"; shift 2 ;;
      --dir=*) dir="${1#--dir=}"; shift ;;
      *) echo "$usage" >&2; return 2 ;;
    esac
  done
  floe_kafka_build
  # The module's own runtime classpath: its classes plus the broker's jars. The broker itself
  # runs in a JVM of its own that the Java side starts.
  java -cp "$FLOE_KAFKA_CLASSES:$(cat "$FLOE_KAFKA_CLASSPATH_FILE")" dev.floe.kafka.LocalKafkaCli "$command" --dir "$dir"
}
