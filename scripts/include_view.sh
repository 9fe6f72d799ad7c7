#!/bin/sh
# Builds one layer's include view (meson.build, "Layers"): a folder holding one link per layer
# the layer may include from.   include_view.sh VIEW DIR1 NAME1 DIR2 NAME2 ...
set -e
view=$1; shift
rm -rf "$view"
mkdir -p "$view"
while [ $# -ge 2 ]; do
  ln -s "$1" "$view/$2"
  shift 2
done
