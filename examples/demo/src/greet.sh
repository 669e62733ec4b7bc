#!/usr/bin/env bash
# Greets whoever is named, or the world.
echo "Hello, ${1:-world}!"
