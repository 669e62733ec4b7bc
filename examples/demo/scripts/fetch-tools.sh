#!/usr/bin/env bash
# Fetches the tools named in tools.txt into ~/tools, unless the cache already restored them.
set -eo pipefail
if [ -f ~/tools/ready ]; then
  echo "tools restored from the cache: $(cat ~/tools/ready)"
  exit 0
fi
echo "fetching tools (slowly, as real downloads are)..."
mkdir -p ~/tools
sleep 2
sha256sum tools.txt | cut -c1-12 > ~/tools/ready
echo "fetched tools $(cat ~/tools/ready)"
