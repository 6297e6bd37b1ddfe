"""``python -m docshelf`` runs the same command line as the ``docshelf`` entry point."""

import sys

from docshelf.interfaces.cli_entry import main

if __name__ == "__main__":
    sys.exit(main())
