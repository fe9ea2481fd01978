# grid_planner: set-up, tests, demo and benchmarks in a self-contained virtual environment.
# Every target does its own set-up; a second run with nothing changed skips it in seconds.

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
BUILD := build/venv
INTERFACE_SOURCES := $(wildcard grid_planner_interfaces/srv/*.srv grid_planner_interfaces/action/*.action) \
	grid_planner_interfaces/CMakeLists.txt grid_planner_interfaces/package.xml
PACKAGE_SOURCES := setup.py setup.cfg package.xml resource/grid_planner \
	$(shell find grid_planner -name '*.py') \
	$(wildcard launch/*.py config/*.yaml config/*.rviz config/*.xml config/maps/*)
SHARED ?= $(or $(GRID_PLANNER_SHARED),../shared)
ROS_ENV := AMENT_PREFIX_PATH=$(abspath $(VENV)) ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
# A ROS test still running after this many seconds fails with its stack (the longest, the
# colcon build and the signal matrix, take about 70 s on a loaded machine; the colcon
# workspace fixture allows its build 600 s and a start-up 300 s more).
ROS_TEST_TIMEOUT := 1200

.PHONY: setup test-env test lint demo gallery bench colcon clean

setup: $(VENV)/.stamp-package

$(VENV)/.stamp-deps: requirements.txt constraints.txt tools/fix_ros_cmake_exports.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	PIP_DISABLE_PIP_VERSION_CHECK=1 $(BIN)/python -m pip install --quiet --quiet -c constraints.txt -r requirements.txt
	$(BIN)/python tools/fix_ros_cmake_exports.py
	touch $@

$(VENV)/.stamp-interfaces: $(VENV)/.stamp-deps $(INTERFACE_SOURCES) tools/build_interface.sh
	tools/build_interface.sh grid_planner_interfaces $(VENV) $(BUILD)/grid_planner_interfaces
	touch $@

# A wheel install, not an editable one: it puts the console scripts on the venv's PATH (an
# editable install follows setup.cfg's ament script_dir, lib/grid_planner) and installs the
# data_files (launch, config, maps, the ament index entry) under .venv/share as colcon would.
# The wheel ignores setup.cfg's install_scripts, so venv_ament_layout.py links the scripts into
# .venv/lib/grid_planner, where `ros2 run` and `ros2 launch` look for them. compile_kernels.py
# fills numba's cache beside the installed kernels, so no node's first start compiles them, and
# beside the checkout's, which the tests import.
$(VENV)/.stamp-package: $(VENV)/.stamp-interfaces $(PACKAGE_SOURCES) tools/venv_ament_layout.py \
		tools/compile_kernels.py
	$(BIN)/python -m pip install --quiet --quiet --no-deps --no-build-isolation --force-reinstall .
	$(BIN)/python tools/venv_ament_layout.py $(VENV)
	$(BIN)/python tools/compile_kernels.py
	touch $@

# Test-time only (never needed by setup or demo): the ros2 command line, launch, Nav2's
# interfaces and bondpy from the shared folder, each only where its import fails; stamped.
test-env: setup
	$(BIN)/python tools/test_env.py $(VENV) $(SHARED)

lint: setup
	$(BIN)/ruff check .

# test/core (no ROS) runs on two processes. test/ros runs on two processes too, a file on each
# at a time (each process in a ROS domain of its own; most of these tests wait on DDS and
# child processes), except the tests marked `alone` (busy on every core, or timed to a second
# or less), which run after the rest, one at a time. The kernel tests run twice: compiled,
# then as plain Python (NUMBA_DISABLE_JIT=1), so the code paths that machines without numba
# take through the kernels are covered too.
test: lint test-env
	GRID_PLANNER_SHARED=$(abspath $(SHARED)) $(BIN)/python -m pytest -q -n 2 --durations=5 test/core
	$(ROS_ENV) GRID_PLANNER_SHARED=$(abspath $(SHARED)) $(BIN)/python -m pytest -n 2 \
		--dist loadfile --durations=15 --timeout=$(ROS_TEST_TIMEOUT) -m "not alone" test/ros
	$(ROS_ENV) GRID_PLANNER_SHARED=$(abspath $(SHARED)) $(BIN)/python -m pytest --durations=5 \
		--timeout=$(ROS_TEST_TIMEOUT) -m alone test/ros
	NUMBA_DISABLE_JIT=1 GRID_PLANNER_SHARED=$(abspath $(SHARED)) $(BIN)/python -m pytest -q -n 2 -m kernel test/core

demo: setup
	$(ROS_ENV) $(BIN)/python tools/demo.py

# The README's pictures (docs/images/, committed): the floor plan, its searches, a puzzle.
gallery: setup
	$(BIN)/python tools/gallery.py

# The peers the benchmarks measure against (bench/requirements*.txt), installed once; a failed
# install (no network, no wheel) is reported and left unstamped: the benchmarks then skip those
# peers with a note, and the next `make bench` tries again.
$(VENV)/.stamp-bench-peers: $(VENV)/.stamp-package bench/requirements.txt bench/requirements-nodeps.txt
	@if $(BIN)/python -m pip install --quiet --quiet -c constraints.txt -r bench/requirements.txt \
		&& $(BIN)/python -m pip install --quiet --quiet --no-deps -r bench/requirements-nodeps.txt; \
	then touch $@; \
	else echo "make bench: the peers in bench/requirements*.txt could not be installed;" \
		"the benchmarks skip the missing ones with a note" >&2; fi

bench: setup $(VENV)/.stamp-bench-peers
	GRID_PLANNER_SHARED=$(abspath $(SHARED)) $(BIN)/python bench/run_all.py

colcon: setup
	$(BIN)/python -m pytest test/ros/test_colcon_build.py

clean:
	rm -rf $(VENV) build install log *.egg-info
