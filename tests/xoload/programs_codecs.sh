#!/bin/sh
# programs_codecs.sh - the codecs part of the real-programs test (lib/programs.sh:
# x265, aomenc and dav1d encode and decode a generated raw video with the
# same bytes natively, under xoload, under xoload --kernel and with the
# proven-code rule's plans in the plan cache; what is execute-only in
# libx265, libdav1d and libaom, and x265's AVX2 path under xoload).
exec /xonly/lib/xoload/programs.sh codecs
