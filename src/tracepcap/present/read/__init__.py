"""Present's one read layer: the REST API, the web UI and the CLI read captures, hosts,
facts, the manifest, verdicts and the trail through these modules and nothing else.

Reads only. Verdicts come back as the runner stored them, as typed `Verdict`s
(`Verdict.from_document`); human actions as `adjudicate.annotations` recorded them. Nothing
here decides an answer, and nothing here knows how a page looks (no colours, no markup).
"""
