"""The tests load the library that DEATHSTACKS_LIB names (the Go test of
cmd/libdeathstacks builds it and sets it), or the installed package's."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
