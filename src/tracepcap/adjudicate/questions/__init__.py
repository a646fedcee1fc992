"""Adjudicated questions, one module each; each defines ADJUDICATOR."""
