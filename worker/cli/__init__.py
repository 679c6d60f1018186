"""The ``turncheck`` command line: ``main`` the app and its commands' registration,
one module per group of commands (``work``, ``read``, ``retention``, ``serve``,
``backtest``),
``startup`` what every command does before its work, ``options`` the options they
share, ``exits`` the exit codes and ``tables`` what a person reads in a terminal.
Commands get their parts from the composition root (``worker/app.py``)."""
