"""Label files: the export lines of ``turncheck labels export`` (``turncheck.label/v1``,
``schemas/label.py``), written and read back.

A backtest replays labelled turns from such a file (``read_labels``) or, without one,
from the store (``LabelTable.labels_for_checks``); both give (turn_id, check) → label.
"""

from turncheck.worker.labels.lines import label_line, read_labels, write_lines

__all__ = ["label_line", "read_labels", "write_lines"]
