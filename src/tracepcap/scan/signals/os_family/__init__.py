"""os-family signals."""
