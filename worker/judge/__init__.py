"""Judged checks: sampling, prompts, the judge client and reading its answers."""
