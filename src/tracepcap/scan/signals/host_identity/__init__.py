"""host-identity signals."""
