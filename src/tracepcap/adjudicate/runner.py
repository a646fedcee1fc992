"""The runner: one verdict per (question, capture, entity), by the same precedence for every
question. It reads stored votes and annotations only, never facts or the capture.

Precedence: override > machine vote (signals + analyst evidence, minus dismissed labels) >
the leaders' common parent in the question's taxonomy > contested. A broad `except` lives at
one place: per question in `adjudicate_held`, so one failing adjudicator never costs the
others their answers.
"""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, fields
from datetime import UTC, datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ..errors import TracePcapError
from ..extract.facts import Grade
from ..scan.context import Answer
from ..scan.vote import ScoreBoard, Tally, Vote
from ..store.bulk import insert_rows
from ..store.entities import resolve as resolve_entity
from ..store.models import Dismissal, Entity, HumanOverride, ManualEvidence, VerdictRow, VoteRow
from ..store.spool import Spool
from .contract import Adjudicator, Basis, Candidate, Dismissed, Key, Override, Tier, Verdict, VoteView
from .registry import Registry

log = logging.getLogger(__name__)
ANALYST_SIGNAL = "analyst-evidence"
HUMAN_ASSISTED_REMARK = "a machine suggestion until a human accepts it"


class MissingReasons(TracePcapError):
    """A machine verdict without reasons: a bug the runner refuses to persist."""


@dataclass(slots=True)
class Annotations:
    override: HumanOverride | None
    evidence: list[ManualEvidence]
    dismissals: list[Dismissal]
    deferred: HumanOverride | None = None  # the human answer of the question this one defers to


def analyst_vote(e: ManualEvidence) -> Vote:
    reason = f"[analyst-provided by {e.actor}] {e.reason} ({e.weight:+d})"
    if e.carried_from:
        reason += f" [{e.carry_note}]"
    return Vote(e.label, e.weight, reason, Grade.ANALYST, (), ANALYST_SIGNAL, e.actor)


def _candidate(tally: Tally, dismissed: Dismissed | None = None) -> Candidate:
    analyst_only = all(v.signal == ANALYST_SIGNAL for v in tally.votes)
    return Candidate(
        label=tally.label, source="analyst" if analyst_only else "machine", score=tally.score,
        reasons=tuple(v.reason for v in tally.votes),
        votes=tuple(VoteView(v.signal, v.weight, v.grade, v.reason, v.frames, v.author) for v in tally.votes),
        dismissed=dismissed)


def decide(adj: Adjudicator, key: Key, votes: list[Vote], notes: Annotations) -> Verdict:
    """The verdict for one key from its votes and annotations."""
    board = ScoreBoard(adj.vocabulary, adj.label_key)
    for vote in votes:
        board.add(vote)
    for evidence in sorted(notes.evidence, key=lambda e: e.id):
        board.add(analyst_vote(evidence))
    dismissed_candidates = []
    for d in sorted(notes.dismissals, key=lambda d: d.label_key):
        tally = board.remove(d.label) or Tally(d.label)
        info = Dismissed(d.actor, f"{d.reason} [{d.carry_note}]" if d.carried_from else d.reason,
                         d.created_at.isoformat())
        dismissed_candidates.append(_candidate(tally, info) if tally.votes else
                                    Candidate(d.label, "machine", 0, (), (), info))
    ranking = board.ranking()
    candidates = [_candidate(t) for t in ranking]
    primary, basis, confidence, contested, capped, parent_of, stopped = _weigh(adj, ranking, notes.dismissals)
    if not candidates:
        candidates = [Candidate(adj.unknown_label, "machine", 0, (NO_EVIDENCE,), ())]
    override, remarks, stale_since = None, [], None
    deferred = _deferred_label(adj, notes.deferred)
    if notes.override is not None:
        o = notes.override
        override = Override(o.label, o.rationale, o.actor, o.updated_at.isoformat())
        primary, basis, confidence, contested = o.label, Basis.HUMAN, 100, False
        if o.carried_from:
            remarks.append(o.carry_note)
        if o.stale_since is not None:
            stale_since = o.stale_since.isoformat()
            if o.stale_capture:  # a carried answer (adjudicate/networks): where it went stale, and what moved
                remarks.append(f"stale since {(o.stale_detail or {}).get('since_name', o.stale_capture)}: "
                               f"{moved(o.stale_detail)}")
            else:
                remarks.append(f"stale: the facts beneath this answer moved since {o.actor} gave it "
                               f"({moved(o.stale_detail)})")
    elif deferred is not None:
        d = notes.deferred
        primary, basis, confidence, contested = deferred, Basis.HUMAN, 100, False
        remarks.append(f"{adj.defers.question} confirmed by {d.actor} as {d.label}")
    elif adj.tier == Tier.HUMAN_ASSISTED and primary is not None:
        remarks.append(HUMAN_ASSISTED_REMARK)
    if basis == Basis.HUMAN:
        parent_of = ()  # a human's answer is at the level they gave it
    elif stopped:
        remarks.append(stopped)
    if capped and basis != Basis.HUMAN and not contested:
        remarks.append(capped)
    return Verdict(key.question, key.capture_id, key.entity_key, primary, basis, confidence, contested,
                   tuple(candidates + dismissed_candidates), override,
                   tuple(c.label for c in dismissed_candidates), tuple(remarks), stale_since, parent_of)


NO_EVIDENCE = "no signal found evidence for any label among this host's facts (+0)"


def _weigh(adj: Adjudicator, ranking: list[Tally], dismissals: Sequence[Dismissal]
           ) -> tuple[str | None, Basis, int, bool, str | None, tuple[str, ...], str | None]:
    """What the ranked votes say, before any human word: (answer, basis, confidence, contested,
    the remark on a capped confidence, the children of a parent-level answer, the note saying
    why it stopped at the parent)."""
    best = ranking[0] if ranking and ranking[0].score > 0 else None
    parent_of: tuple[str, ...] = ()
    stopped = None
    if best is None:
        return adj.unknown_label, Basis.MACHINE, 0, False, None, parent_of, stopped
    second = _rival(adj, ranking)
    margin = best.score - max(second.score, 0) if second else best.score
    confidence = _confidence(adj, margin)
    disputed = any(v.weight < 0 for v in best.votes)  # evidence against the leader
    contested = disputed or (second is not None and second.score > 0 and confidence < adj.contest_below)
    primary = None if contested else best.label
    strongest = max(best.votes, key=lambda v: v.weight)
    basis = Basis.REPORTED if strongest.grade == Grade.REPORTED else Basis.MACHINE
    confidence, capped = _supported(confidence, best)
    if contested and not disputed and (family := _common_parent(adj, ranking, dismissals)):
        primary, parent_of, stopped, confidence = family
        contested = False
        confidence, capped = _supported(confidence, best)
    return primary, basis, confidence, contested, capped, parent_of, stopped


#: what `machine_row` weighed, by question and votes without their reasons and frames (`Weighed`)
Weighed = dict[tuple[str, tuple[tuple[str, int, str, str], ...]], tuple]


def machine_row(adj: Adjudicator, capture_id: str, entity: str, votes: Sequence[Vote],
                weighed: Weighed | None = None) -> tuple[tuple, Answer] | None:
    """`decide` without annotations, straight to what `Decided` keeps: the verdict row
    (VERDICT_KEYS, its document as JSON text, equal to `json.dumps(verdict.to_document())`) and
    the machine Answer signals read, without a Candidate, VoteView or Verdict per entity (a
    many-host capture's os-family and vendor-model verdicts were a fifth of Scan). None when
    the verdict could not be kept: votes unlike the stored ones (a list of frames, an int
    subclass, an author) or a vote without a reason (`decide` and `_check_reasons` say why).

    `weighed` keeps what the votes' labels, weights, grades and signals decide (the answer, its
    confidence, remarks and backing: `_weigh` reads nothing else; reasons and frames only order
    and fill the candidates), for the next entity with votes alike: a many-host capture's hosts
    vote alike but for their frames."""
    board = ScoreBoard(adj.vocabulary, adj.label_key)
    for vote in votes:
        if type(vote.weight) is not int or type(vote.frames) is not tuple or vote.author is not None \
                or not vote.reason.strip():
            return None
        board.add(vote)
    ranking = board.ranking()
    if not ranking:
        return None
    alike = (adj.question, tuple((v.label, v.weight, v.grade, v.signal) for v in votes))
    found = weighed.get(alike) if weighed is not None else None
    if found is None:
        found = _weighed(adj, ranking)
        if weighed is not None:
            weighed[alike] = found
    primary, basis, confidence, contested, remarks, parent_of, label, backing = found
    candidates = [{"label": t.label, "source": "analyst" if all(v.signal == ANALYST_SIGNAL for v in t.votes)
                   else "machine", "score": t.score, "reasons": [v.reason for v in t.votes],
                   "votes": [{"signal": v.signal, "weight": v.weight, "grade": v.grade, "reason": v.reason,
                              "frames": list(v.frames)} for v in t.votes]}
                  for t in ranking]
    document = {"question": adj.question, "capture_id": capture_id, "entity_key": entity, "primary_label": primary,
                "basis": basis, "confidence": confidence, "contested": contested, "candidates": candidates,
                "override": None, "dismissed": [], "notes": list(remarks), "stale_since": None,
                "parent_of": list(parent_of)}
    return ((entity, primary, basis, confidence, contested, json.dumps(document)),
            Answer(adj.question, label, confidence, parent_of, backing))


def _weighed(adj: Adjudicator, ranking: list[Tally]) -> tuple:
    """What `machine_row` makes of a ranking beside its candidates: (answer, basis, confidence,
    contested, remarks, children of a parent-level answer, the answer's label, its backing)."""
    primary, basis, confidence, contested, capped, parent_of, stopped = _weigh(adj, ranking, ())
    remarks = []
    if adj.tier == Tier.HUMAN_ASSISTED and primary is not None:
        remarks.append(HUMAN_ASSISTED_REMARK)
    if stopped:
        remarks.append(stopped)
    if capped and not contested:
        remarks.append(capped)
    label = adj.unknown_label if primary is None else primary
    carried = {adj.label_key(x) for x in (label, *parent_of)}
    backing = sorted({v.signal for t in ranking if adj.label_key(t.label) in carried for v in t.votes if v.weight > 0})
    return primary, str(basis), confidence, contested, tuple(remarks), parent_of, label, tuple(backing)


def _rival(adj: Adjudicator, ranking: list[Tally]) -> Tally | None:
    """The leader's runner-up: the best other candidate that is not one of its ancestors in
    the taxonomy (evidence for "Network device" does not argue against "Switch": it is
    evidence for the kind of thing a switch is)."""
    if not ranking:
        return None
    above = {adj.label_key(label) for label in adj.lineage(ranking[0].label)}
    return next((t for t in ranking[1:] if adj.label_key(t.label) not in above), None)


def _confidence(adj: Adjudicator, margin: int) -> int:
    return max(0, min(100, round(100 * margin / adj.margin_for_full)))


def _common_parent(adj: Adjudicator, ranking: list[Tally],
                   dismissals: list[Dismissal]) -> tuple[str, tuple[str, ...], str, int] | None:
    """Commit at the level the evidence supports: when every candidate within the contest
    margin of the leader descends from one label of the taxonomy, that nearest common parent
    is the answer. Returns (parent, the children it stands for, the note saying why it stopped
    there, its confidence: the leader's margin over the best candidate outside the family),
    or None when the leaders disagree beyond any parent, or a human dismissed the parent."""
    best = ranking[0]
    leaders = [t for t in ranking if t.score > 0 and _confidence(adj, best.score - t.score) < adj.contest_below]
    lines = [(t.label, *adj.lineage(t.label)) for t in leaders]
    keys = [{adj.label_key(label) for label in line} for line in lines]
    parent = next((p for p in lines[0] if all(adj.label_key(p) in k for k in keys)), None)
    if parent is None or adj.label_key(parent) in {adj.label_key(d.label) for d in dismissals}:
        return None
    family = adj.label_key(parent)
    children = [t for t in leaders if adj.label_key(t.label) != family]
    outside = next((t for t in ranking
                    if family not in {adj.label_key(x) for x in (t.label, *adj.lineage(t.label))}), None)
    margin = best.score - max(outside.score, 0) if outside else best.score
    named = [f"{t.label} ({t.score})" for t in children]
    if len(children) > 1:
        listing = ", ".join(named[:-1]) + f" and {named[-1]}"
        why = f"{listing} are {'both' if len(children) == 2 else 'all'} {parent}"
    else:  # the parent itself is a candidate (analyst evidence for it), beside one child
        own = next(t for t in leaders if adj.label_key(t.label) == family)
        why = f"{named[0]} is one kind of {parent}, and {parent} itself has {own.score}"
    apart = ("nothing here tells them apart" if len({t.score for t in leaders}) == 1
             else "the evidence does not tell them apart firmly enough to choose")
    note = f"stopped at {parent}: {why}, and {apart}"
    return parent, tuple(t.label for t in children), note, _confidence(adj, margin)


LONE_SIGNAL_CAP = 75  # one signal, however strong, is not the independent agreement 80+ claims
INFERRED_ONLY_CAP = 50  # reference data or a port guess alone: a hint


def _supported(confidence: int, best: Tally) -> tuple[int, str | None]:
    """The margin-based confidence, capped by how much independent evidence the answer has:
    confidence measures support, and one signal (or only inferred facts) is thin support
    however lopsided the vote. Returns the confidence and the remark saying why it was cut."""
    backing = [v for v in best.votes if v.weight > 0]
    if backing and all(v.grade == Grade.INFERRED for v in backing) and confidence > INFERRED_ONLY_CAP:
        return INFERRED_ONLY_CAP, (f"confidence held at {INFERRED_ONLY_CAP}: only inferred facts "
                                   "(reference data, port guesses) support this answer")
    if len({v.signal for v in backing}) < 2 and confidence > LONE_SIGNAL_CAP:
        return LONE_SIGNAL_CAP, (f"confidence held at {LONE_SIGNAL_CAP}: one signal alone supports "
                                 "this answer")
    return confidence, None


def _deferred_label(adj: Adjudicator, deferred: HumanOverride | None) -> str | None:
    if adj.defers is None or deferred is None:
        return None
    return adj.defers.label_for(deferred.label)


def moved(detail: dict | None) -> str:
    """What moved beneath a stale human answer, in words."""
    if not detail:
        return "facts changed"
    if detail.get("changes"):  # a carried answer's changes, each with its facts and frames
        return "; ".join(c["text"] for c in detail["changes"])
    parts = [f"{kind} {value} gone" for kind, value in detail.get("gone", [])]
    parts += [f"{kind} {value} new" for kind, value in detail.get("new", [])]
    return ", ".join(parts) or "facts changed"


def _check_reasons(v: Verdict) -> None:
    live = v.live
    if v.basis != Basis.HUMAN and not all(r.strip() for c in live for r in c.reasons) or not any(
            c.reasons for c in live):
        raise MissingReasons(f"{v.question} verdict for {v.entity_key} in capture {v.capture_id} "
                             "has no reasons; refusing to persist it")


def _row(v: Verdict, now: datetime) -> dict:
    return {"capture_id": v.capture_id, "question": v.question, "entity_key": v.entity_key,
            "primary_label": v.primary_label, "basis": str(v.basis), "confidence": v.confidence,
            "contested": v.contested, "document": v.to_document(), "updated_at": now}


def _annotations(session: Session, adj: Adjudicator, capture_id: str, entity: str | list[str] | None = None):
    """The annotations of the question (and of the one it defers to) in the capture, of one
    entity or a list of them (None: every entity), grouped by entity."""
    def query(model, question=adj.question):
        stmt = select(model).where(model.capture_id == capture_id, model.question == question)
        if isinstance(entity, str):
            stmt = stmt.where(model.entity_key == entity)
        elif entity is not None:
            stmt = stmt.where(model.entity_key.in_(entity))
        return session.scalars(stmt).all()
    grouped: dict[str, Annotations] = defaultdict(lambda: Annotations(None, [], []))
    for o in query(HumanOverride):
        grouped[o.entity_key].override = o
    if adj.defers is not None:
        for o in query(HumanOverride, adj.defers.question):
            grouped[o.entity_key].deferred = o
    for e in query(ManualEvidence):
        grouped[e.entity_key].evidence.append(e)
    for d in query(Dismissal):
        grouped[d.entity_key].dismissals.append(d)
    return grouped


#: entities whose votes are read by a list of keys (`_votes`); past it, the question's every vote
VOTES_BY_KEY = 500


def _votes(session: Session, capture_id: str, question: str, entity: str | list[str] | None = None):
    """A question's votes in the capture by entity, in the order stored: of one entity, of a
    list of them (read whole past VOTES_BY_KEY), or (None) of every entity."""
    stmt = select(VoteRow.entity_key, VoteRow.label, VoteRow.weight, VoteRow.reason, VoteRow.grade,
                  VoteRow.frames, VoteRow.signal).where(VoteRow.capture_id == capture_id,
                                                        VoteRow.question == question)
    if isinstance(entity, str):
        stmt = stmt.where(VoteRow.entity_key == entity)
    elif entity is not None and len(entity) <= VOTES_BY_KEY:
        stmt = stmt.where(VoteRow.entity_key.in_(entity))
    grouped: dict[str, list[Vote]] = defaultdict(list)
    rows = session.connection().execute(stmt.order_by(VoteRow.id))  # Core rows: no ORM loading per vote
    for entity_key, label, weight, reason, grade, frames, signal in rows:
        grouped[entity_key].append(Vote(label, weight, reason, grade, tuple(frames), signal))
    return grouped


def adjudicate_question(session: Session, adj: Adjudicator, capture_id: str, decided: Decided | None = None) -> int:
    """(Re)write every verdict of one question for a capture; return how many. With `decided`
    (what Scan decided for this capture's votes: `machine_answer`), an entity without any
    annotation takes the verdict Scan decided for it, which is the one deciding again would
    give: the same votes, and no human answer, evidence or dismissal. The annotations are read
    here, in the caller's transaction, so a human's is never left out."""
    hosts = session.scalars(select(Entity.key).where(Entity.capture_id == capture_id)
                            .order_by(Entity.position)).all()
    notes = _annotations(session, adj, capture_id)
    kept = decided.rows(adj.question, hosts) if decided is not None else None
    if kept is None:
        votes = _votes(session, capture_id, adj.question)
    else:  # only the votes of the entities decided here
        fresh = [ip for ip in hosts if ip in notes or ip in kept.unkept]
        votes = _votes(session, capture_id, adj.question, fresh) if fresh else defaultdict(list)
    now = datetime.now(UTC)

    question = adj.question

    def rows():  # made as they are inserted: a many-host capture's documents are never all in memory
        for ip in hosts:  # tuples of VERDICT_ROW_KEYS
            if kept is not None and ip not in kept.unkept:
                made = kept.next(ip)
                if ip not in notes:
                    yield (capture_id, question, *made, now)
                    continue
            verdict = decide(adj, Key(question, capture_id, ip), votes.pop(ip, []), notes[ip])
            _check_reasons(verdict)
            document = verdict.to_document()
            yield (capture_id, question, ip, verdict.primary_label, str(verdict.basis), verdict.confidence,
                   verdict.contested, document if kept is None else json.dumps(document), now)  # kept: JSON text
    session.execute(delete(VerdictRow).where(VerdictRow.capture_id == capture_id,
                                             VerdictRow.question == question))
    return insert_rows(session, VerdictRow, rows(), batch=2000, keys=VERDICT_ROW_KEYS,
                       encoded=("document",) if kept is not None else ())


def adjudicate_held(session: Session, registry: Registry, capture_id: str,
                    decided: Decided | None = None) -> dict[str, str]:
    """Every question for a capture, in the caller's transaction, which holds the capture
    (`store.staging.hold_capture`): no human writer is between reading the annotations and
    writing the verdicts, so none of their answers is overwritten by a verdict computed without
    it. The caller marks stale human answers first (`annotations.mark_stale`); each question
    runs in a savepoint of its own. `decided`: what Scan decided for the capture's votes as
    they are now (`adjudicate_question`). Returns failures by question."""
    failures: dict[str, str] = {}
    for adj in registry:
        try:
            with session.begin_nested():
                adjudicate_question(session, adj, capture_id, decided)
        except Exception as err:  # noqa: BLE001 - named boundary: one question
            log.exception("adjudicating %s for capture %s failed", adj.question, capture_id)
            failures[adj.question] = f"{type(err).__name__}: {err}"
    return failures


def rerun(session: Session, registry: Registry, key: Key) -> Verdict:
    """Re-adjudicate one key synchronously (after a human action) and store the verdict; the
    questions that defer to this one are re-adjudicated for the entity too."""
    verdict = _rerun_one(session, registry.get(key.question), key)
    for adj in registry:
        if adj.defers is not None and adj.defers.question == key.question:
            _rerun_one(session, adj, Key(adj.question, key.capture_id, key.entity_key))
    return verdict


def _rerun_one(session: Session, adj: Adjudicator, key: Key) -> Verdict:
    votes = _votes(session, key.capture_id, key.question, key.entity_key).get(key.entity_key, [])
    notes = _annotations(session, adj, key.capture_id, key.entity_key)[key.entity_key]
    verdict = decide(adj, key, votes, notes)
    _check_reasons(verdict)
    row = _row(verdict, datetime.now(UTC))
    existing = session.get(VerdictRow, (key.capture_id, key.question, key.entity_key))
    if existing is None:
        session.add(VerdictRow(**row))
    else:
        for name, value in row.items():
            setattr(existing, name, value)
    session.flush()
    return verdict


class Decided:
    """Machine verdicts decided outside any writing transaction: the questions other signals
    read as Scan makes the votes (`machine_answer`), every other one from Scan's votes after it
    (`decide_rest`, once its context is gone: deciding beside it cost more). Kept for
    adjudicate_question to reuse on entities without annotations, so that Adjudicate does not
    decide them again from the same votes and the swap's transaction only writes them. By
    question, in the order Scan met the entities, as verdict rows with their documents as JSON
    text (as the store writes them) in a spool (store/spool.py: pickled past a few thousand,
    on disk past a MiB: a many-host capture's documents are never all in memory), with the
    entity keys in memory. A verdict is kept only when the votes it was decided from are the
    votes as stored (store types: int weights, tuple frames, no author) and it has its
    reasons; otherwise Adjudicate decides it as always. Close it (`with`)."""

    HOLD = 2000  # verdict documents held as they are, per question, before they are pickled
    MEMORY = 1 << 20  # bytes of pickled documents per question kept in memory before they go to disk

    def __init__(self, capture_id: str, registry: Registry) -> None:
        self.capture_id = capture_id  # the capture whose verdicts these become (not the staging one)
        self.registry = registry
        self._rows: dict[str, Spool] = {}
        self._keys: dict[str, list[str]] = {}
        self._unkept: dict[str, set[str]] = {}
        #: question -> the fields after the key of the verdict of an entity without votes, and
        #: its document's JSON text before and after the entity key, and its answer (`_unvoted`)
        self._unvoted_made: dict[str, tuple[tuple, str, str, Answer]] = {}
        self._weighed: Weighed = {}  # machine_row's, across the entities

    def __enter__(self) -> Decided:
        return self

    def __exit__(self, *_exc) -> None:
        self.close()

    def decide(self, question: str, entity: str, votes: list[Vote]) -> Verdict:
        """The machine verdict of `question` for `entity` from `votes` alone, kept."""
        if not votes:  # most entities have no vote for some question: one verdict, one document each
            return self._unvoted(question, entity)
        verdict = decide(self.registry.get(question), Key(question, self.capture_id, entity), votes,
                         Annotations(None, [], []))
        self.keep(verdict, votes)
        return verdict

    def answer(self, question: str, entity: str, votes: list[Vote]) -> Answer:
        """The machine answer of `question` for `entity` from `votes` alone, its verdict kept
        (`decide`'s), made straight from the votes where it can be (`machine_row`)."""
        adj = self.registry.get(question)
        if votes and (made := machine_row(adj, self.capture_id, entity, votes, self._weighed)) is not None:
            row, answer = made
            self._keep_row(question, entity, row)
            return answer
        if not votes:  # the same answer for every entity without votes: only its row is made
            return self._keep_unvoted(question, entity)[3]
        return answer_of(adj, self.decide(question, entity, votes))

    def _unvoted(self, question: str, entity: str) -> Verdict:
        """The verdict of an entity without votes: the question's one such verdict with its key,
        its row kept (`_keep_unvoted`)."""
        after_key = self._keep_unvoted(question, entity)[0]
        return Verdict(question, self.capture_id, entity, *after_key)

    def _keep_unvoted(self, question: str, entity: str) -> tuple[tuple, str, str, Answer]:
        """Keep the row of an entity without votes: the question's one such verdict with its
        key, its document's JSON text made from the same text with its entity key. Returns
        what every such verdict shares: its fields after the key, the document's text before
        and after the key, its answer."""
        made = self._unvoted_made.get(question)
        if made is None:
            adj = self.registry.get(question)
            template = decide(adj, Key(question, self.capture_id, ""), [], Annotations(None, [], []))
            _check_reasons(template)
            document = template.to_document()
            # the document's first keys are question, capture_id, entity_key (Verdict.to_document)
            if list(document)[:3] != ["question", "capture_id", "entity_key"]:
                raise AssertionError("a verdict document no longer begins with its key")
            head = f'{{"question": {json.dumps(question)}, "capture_id": {json.dumps(self.capture_id)}, "entity_key": '
            rest = json.dumps({k: v for k, v in document.items() if k not in ("question", "capture_id", "entity_key")})
            after_key = tuple(getattr(template, f.name) for f in fields(Verdict)[3:])
            made = self._unvoted_made[question] = (after_key, head, ", " + rest[1:], answer_of(adj, template))
        after_key, head, tail, _ = made
        primary, basis, confidence, contested = after_key[:4]
        self._keep_row(question, entity, (entity, primary, str(basis), confidence, contested,
                                          head + json.dumps(entity) + tail))
        return made

    def decide_rest(self, votes: Iterable[Sequence], entities: list[str], questions: Iterable[str]) -> None:
        """Decide and keep each of `questions` (those Scan voted on) not decided as the votes
        were made, for each of `entities` (in Scan's order), from its votes as the store gives
        them back. `votes`: Scan's vote rows (scan.run.VOTE_KEYS), a question's together, each
        entity's in the order made. One question's votes are in memory at a time, as Adjudicate
        reads them."""
        question: str | None = None
        grouped: dict[str, list[Vote]] = defaultdict(list)
        for _cid, q, entity, signal, label, weight, reason, grade, frames in votes:
            if q != question:
                if question is not None and question not in self._rows:
                    self._decide_all(question, entities, grouped)
                question = q
                grouped.clear()
            if q not in self._rows:
                grouped[entity].append(Vote(label, weight, reason, grade, tuple(frames), signal))
        if question is not None and question not in self._rows:
            self._decide_all(question, entities, grouped)
        for q in questions:  # no entity had a vote
            if q not in self._rows:
                self._decide_all(q, entities, {})

    def _decide_all(self, question: str, entities: list[str], grouped: dict[str, list[Vote]]) -> None:
        if question not in self.registry:
            return
        for entity in entities:
            self.answer(question, entity, grouped.pop(entity, []))

    def keep(self, verdict: Verdict, votes: list[Vote]) -> None:
        question, entity = verdict.question, verdict.entity_key
        try:
            _check_reasons(verdict)
            as_stored = all(type(v.weight) is int and type(v.frames) is tuple and v.author is None for v in votes)
        except MissingReasons:
            as_stored = False
        self._keep_row(question, entity, (entity, verdict.primary_label, str(verdict.basis), verdict.confidence,
                                          verdict.contested, json.dumps(verdict.to_document()))
                       if as_stored else None)

    def _keep_row(self, question: str, entity: str, row: tuple | None) -> None:
        """Keep one verdict row (VERDICT_KEYS) in Scan's order; None: decided, not kept."""
        if question not in self._rows:
            self._rows[question] = Spool(VERDICT_KEYS, batch=self.HOLD, hold=self.HOLD, memory=self.MEMORY)
            self._keys[question], self._unkept[question] = [], set()
        self._keys[question].append(entity)
        if row is None:
            self._unkept[question].add(entity)
        else:
            self._rows[question].add(row)

    def rows(self, question: str, entities: Sequence[str]) -> _Kept | None:
        """The verdicts kept for `question`, read in order by `_Kept.next`; None unless Scan
        decided it for exactly `entities`, in that order."""
        if question not in self._rows or self._keys[question] != list(entities):
            return None
        return _Kept(self._rows[question].rows(), self._unkept[question])

    def close(self) -> None:
        for spool in self._rows.values():
            spool.close()
        self._rows.clear()


VERDICT_KEYS = ("entity_key", "primary_label", "basis", "confidence", "contested", "document")
#: a verdict row as Adjudicate writes it: the capture and question, a kept row's columns, the time
VERDICT_ROW_KEYS = ("capture_id", "question", *VERDICT_KEYS, "updated_at")


class _Kept:
    """One question's kept verdict rows, taken in entity order; `unkept`: entities Scan decided
    whose verdicts were not kept."""

    def __init__(self, rows, unkept: set[str]) -> None:
        self._rows, self.unkept = rows, unkept

    def next(self, entity: str) -> tuple:
        row = next(self._rows)
        if row[0] != entity:
            raise AssertionError(f"kept verdicts out of order: {row[0]} where {entity} was expected")
        return row


def machine_answer(registry: Registry, decided: Decided | None = None) -> Callable[[str, str, list[Vote]], Answer]:
    """What scan hands the signals that read another question's answer (`scan_capture(...,
    answer=machine_answer(registry))`): that question's verdict for one entity from its
    votes alone, no human annotation, with the signals that carry it. With `decided`, each
    verdict is kept there for Adjudicate (`Decided`)."""
    def answer(question: str, entity: str, votes: list[Vote]) -> Answer:
        if decided is not None:
            return decided.answer(question, entity, votes)
        adj = registry.get(question)
        return answer_of(adj, decide(adj, Key(question, "", entity), votes, Annotations(None, [], [])))
    return answer


def answer_of(adj: Adjudicator, verdict: Verdict) -> Answer:
    """A machine verdict as the signals that read its question see it: its label, confidence,
    the children of a parent-level answer, and the signals whose votes carry it."""
    label = adj.unknown_label if verdict.primary_label is None else verdict.primary_label
    carried = {adj.label_key(x) for x in (label, *verdict.parent_of)}
    backing = sorted({v.signal for c in verdict.candidates if adj.label_key(c.label) in carried
                      for v in c.votes if v.weight > 0})
    return Answer(verdict.question, label, verdict.confidence, verdict.parent_of, tuple(backing))


def rerun_many(session: Session, registry: Registry, keys: set[Key]) -> None:
    """Re-adjudicate many keys (and the questions deferring to theirs) with one read of votes
    and annotations per (capture, question), as `rerun` does for one (adjudicate/networks
    re-adjudicates every key whose carried answers changed)."""
    groups: dict[tuple[str, str], set[str]] = {}
    for key in keys:
        if key.question not in registry:
            continue
        for adj in registry:
            if adj.question == key.question or (adj.defers is not None and adj.defers.question == key.question):
                groups.setdefault((key.capture_id, adj.question), set()).add(key.entity_key)
    now = datetime.now(UTC)
    for (capture_id, question), entities in sorted(groups.items()):
        adj = registry.get(question)
        wanted = sorted(entities)
        votes: dict[str, list] = defaultdict(list)
        for entity, label, weight, reason, grade, frames, signal in session.execute(select(
                VoteRow.entity_key, VoteRow.label, VoteRow.weight, VoteRow.reason, VoteRow.grade, VoteRow.frames,
                VoteRow.signal).where(VoteRow.capture_id == capture_id, VoteRow.question == question,
                                      VoteRow.entity_key.in_(wanted)).order_by(VoteRow.id)):
            votes[entity].append(Vote(label, weight, reason, grade, tuple(frames), signal))
        notes = _annotations(session, adj, capture_id, wanted)  # the keys' own, not the capture's
        existing = {r.entity_key: r for r in session.scalars(select(VerdictRow).where(
            VerdictRow.capture_id == capture_id, VerdictRow.question == question, VerdictRow.entity_key.in_(wanted)))}
        for entity in wanted:
            verdict = decide(adj, Key(question, capture_id, entity), votes.get(entity, []), notes[entity])
            _check_reasons(verdict)
            row = _row(verdict, now)
            if entity in existing:
                for name, value in row.items():
                    setattr(existing[entity], name, value)
            else:
                session.add(VerdictRow(**row))
    session.flush()


def stored_verdict(session: Session, key: Key) -> Verdict | None:
    """The verdict as the runner last stored it (None before the first adjudication). The
    entity may be named by any of its addresses or MACs (store/entities.resolve)."""
    row = session.get(VerdictRow, (key.capture_id, key.question, key.entity_key))
    if row is None and (found := resolve_entity(session, key.capture_id, key.entity_key)) not in (None, key.entity_key):
        row = session.get(VerdictRow, (key.capture_id, key.question, found))
    return Verdict.from_document(row.document) if row is not None else None


__all__ = ["Decided", "MissingReasons", "adjudicate_held", "decide", "machine_answer", "rerun", "rerun_many",
           "stored_verdict"]

