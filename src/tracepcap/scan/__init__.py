"""scan stage."""
