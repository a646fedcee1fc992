"""Present: the CLI, the API, the web UI and exports. It never computes a conclusion."""
