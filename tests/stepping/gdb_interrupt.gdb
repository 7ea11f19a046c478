# Ctrl-C in gdb (issue 25, item 6): gdb_path.sh sends gdb a SIGINT while a
# `continue` runs through bench/stepping_long's 266,000 steps; gdb sends
# the interrupt byte and ctrl stops the continue between two steps: a
# SIGINT stop, and the session goes on (a stepi after it).

set pagination off
set confirm off

#   interrupted by Ctrl-C at step [0-9]+
#   received signal SIGINT, Interrupt\.
#!  the program has ended
continue
#   ^ *[0-9]+  T[0-9]
stepi
detach
