"""One router per resource, mounted under /api by `create_app`."""
