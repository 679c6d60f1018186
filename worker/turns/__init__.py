"""The turn as the worker reads it: the structs the checks read (``structs``) and how a
message's bytes become one, or are refused with a reason (``decode``)."""
