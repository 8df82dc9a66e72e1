"""``python3 -m gpbandit ARGS``: the gpbandit command line (see _cli.py)."""
import sys

from ._cli import main

sys.exit(main())
