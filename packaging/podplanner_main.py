"""The packaged app's entry point: the same ``podplanner`` command as the installed console script."""
import multiprocessing
import sys

from widgets.launcher import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen app on Windows re-enters here in any child process
    sys.exit(main())
