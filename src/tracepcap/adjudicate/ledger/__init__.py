"""The ground floor of human annotations, which both `annotations` (what a human does to a
verdict) and `networks` (what is carried between the captures of a network) build on: the
audit log and its one writer (`audit`), turns on an entity (`locking`), validation of a key or
a text (`validation`), the canonical key of an entity (`naming`), a key's rows (`keyed`) and
staleness of human answers (`staleness`). Nothing here imports `annotations` or `networks`."""
