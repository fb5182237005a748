#!/bin/sh
# programs_tools.sh - the tools part of the real-programs test (lib/programs.sh:
# the same output natively, under xoload and under xoload --kernel, and
# what is execute-only in the running programs).
exec /xonly/lib/xoload/programs.sh tools
