#!/usr/bin/env bash
# Runs this node's share of a test suite against dist/greet and writes JUnit XML to reports/.
set -eo pipefail
suite=$1
node=${CIRCLE_NODE_INDEX:-0}
total=${CIRCLE_NODE_TOTAL:-1}
mkdir -p reports
cases=""
count=0
for name in world Ada Grace Linus; do
  # Split the cases over the parallel nodes, as `circleci tests split` would.
  if [ $((count % total)) -eq "$node" ]; then
    expected="Hello, $name!"
    start=$(date +%s%N)
    actual=$(dist/greet "$name")
    elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "$suite/$name: $actual"
    if [ "$actual" = "$expected" ]; then
      cases+="<testcase classname=\"greeter.$suite\" name=\"greets $name\" time=\"0.$(printf %03d "$elapsed")\"/>"
    else
      cases+="<testcase classname=\"greeter.$suite\" name=\"greets $name\"><failure message=\"got $actual\"/></testcase>"
    fi
  fi
  count=$((count + 1))
done
echo "<testsuite name=\"$suite-$node\">$cases</testsuite>" > "reports/$suite-$node.xml"
echo "wrote reports/$suite-$node.xml"
