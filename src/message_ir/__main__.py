"""`python -m message_ir`: the same command line as `message-ir`."""

import sys

from message_ir._cli import main

if __name__ == "__main__":  # not when a worker process started by `forkserver` imports it
    sys.exit(main())
