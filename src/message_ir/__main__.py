"""`python -m message_ir`: the same command line as `message-ir`."""

import sys

from message_ir._cli import main

sys.exit(main())
