"""adjudicate stage."""
