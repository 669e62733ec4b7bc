#!/usr/bin/env bash
# "Compiles" the greeter into dist/.
set -eo pipefail
mkdir -p dist
cp src/greet.sh dist/greet
chmod +x dist/greet
echo "built dist/greet at ${CIRCLE_SHA1:-unknown revision}"
