"""The rules objects: every number a rule decides by, named once with its meaning and the data it
was calibrated on (frozen dataclasses, reachable from the typed params), and the stable ids of the
rules that leave a trace."""
