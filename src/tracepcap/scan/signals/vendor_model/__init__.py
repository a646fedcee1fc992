"""vendor-model signals."""
