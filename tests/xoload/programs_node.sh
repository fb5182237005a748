#!/bin/sh
# programs_node.sh - the node part of the real-programs test (lib/programs.sh:
# the same output natively, under xoload and under xoload --kernel, and
# what is execute-only in the running programs).
exec /xonly/lib/xoload/programs.sh node
