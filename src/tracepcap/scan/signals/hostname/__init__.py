"""hostname signals."""
