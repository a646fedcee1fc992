"""node-role signals: machine suggestions of a host's role, for a human to accept."""
