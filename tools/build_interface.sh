#!/usr/bin/env bash
# Build one ament_cmake interface package (rosidl) and install it into a virtual environment
# that holds the ROS 2 wheels, as colcon would install it into a workspace prefix.
#
#   usage: tools/build_interface.sh PACKAGE_DIR VENV BUILD_DIR
#
# BUILD_DIR is emptied first; its cmake.log and make.log are shown when a step fails.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PACKAGE_DIR VENV BUILD_DIR" >&2; exit 2; }
SRC=$(cd "$1" && pwd)
VENV=$(cd "$2" && pwd)
BUILD=$3
rm -rf "$BUILD"
mkdir -p "$BUILD"
cd "$BUILD"
PATH=$VENV/bin:$PATH AMENT_PREFIX_PATH=$VENV cmake "$SRC" -DCMAKE_PREFIX_PATH="$VENV" \
  -DCMAKE_INSTALL_PREFIX="$VENV" -DPython3_EXECUTABLE="$VENV/bin/python" -DBUILD_TESTING=OFF \
  > cmake.log 2>&1 || { cat cmake.log; echo "build_interface: cmake failed for $SRC" >&2; exit 1; }
make -j2 install > make.log 2>&1 \
  || { tail -50 make.log; echo "build_interface: build failed for $SRC" >&2; exit 1; }
