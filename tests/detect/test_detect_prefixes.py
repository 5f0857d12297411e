"""Growing prefixes on one line (detect/prefixes.py): every partial result of a
dictation inserted again is a loop; a sentence restarted once or twice, or one word said
again and again, is not this rule's."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings, strategies as st

import degen
from degen.detect import DEFAULT, analyze
from degen.formats import loads


def _prefix_findings(text: str):
    return [f for f in analyze(loads(text, "text")).findings if "growing_prefixes" in f.evidence]


@pytest.mark.parametrize("text", [
    "Do Do yDo you Do you kDo you know wDo you know whDo you know what I mean",  # glued partials
    "Do Do you Do you know Do you know what Do you know what I mean",  # word by word
    "Okay. So we So we need So we need to So we need to ship it today.",
])
def test_partial_results_inserted_again_are_a_loop(text):
    found = _prefix_findings(text)
    assert len(found) == 1 and found[0].severity == "medium" and found[0].count >= DEFAULT.prefix_copies
    assert degen.scan_text(text).degenerate


@pytest.mark.parametrize("text", [
    "I, I think, I think that we should go.",  # a restart, twice
    "no no no no no no no no",  # one word again: the tandem repeats' case
    "thank you thank you thank you thank you",
    "The theory there is the thesis of the thermal thermostat.",
    "We went to the store and then to the station and then to the stadium.",
])
def test_restarts_and_plain_repeats_are_not_growing_prefixes(text):
    assert _prefix_findings(text) == []


WORDS = st.lists(st.sampled_from(["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]),
                 min_size=4, max_size=8, unique=True)


@settings(max_examples=60, deadline=None)
@given(WORDS, st.integers(min_value=0, max_value=2))
def test_every_chain_of_partials_is_found_where_it_stands(words, skip):
    # partials of 1, 2, ... words (from ``skip`` + 1 on), then the whole sentence, after a real clause
    partials = [" ".join(words[:n]) for n in range(1 + skip, len(words))] + [" ".join(words) + "."]
    if len(partials) < DEFAULT.prefix_copies:
        return
    text = "Well, here it is. " + " ".join(partials)
    found = _prefix_findings(text)
    assert len(found) == 1 and found[0].count >= DEFAULT.prefix_copies
    assert found[0].excerpt.startswith(partials[0])  # the chain starts at its first partial, not the clause before


_WORDS = st.sampled_from(["I", "don't", "dont", "do", "you", "know", "the", "a", "no", "go", "ok", "it's", "it’s",
                          "Straße", "STRASSE", "naïve", "l'été", "rock'n'roll", "a''b", "ﬁne", "ｆｉｎｅ", "x_y"])


@st.composite
def _partials(draw):
    """A sentence and partial results of it, some glued to the next one, after a few words."""
    text = " ".join(draw(st.lists(_WORDS, min_size=3, max_size=7)))
    cuts = sorted(set(draw(st.lists(st.integers(1, len(text)), min_size=3, max_size=6))))
    glue = draw(st.sampled_from(["", " ", ", "]))
    before = " ".join(draw(st.lists(_WORDS, max_size=3)))
    return f"{before} {glue.join(text[:c] for c in cuts)}{glue}{text}"


@settings(max_examples=400, deadline=None)
@given(_partials())
@example(" d dont dont d dont don't d dont don't don't")
@example("We we we're we're go we're going we're going home")
def test_the_quick_test_never_passes_over_a_chain(text):
    # _may_hold spares most lines the search: it must be a necessary test, whatever the
    # apostrophes, case folding and compatibility characters (it once kept apostrophes
    # that the search's key drops, and missed " d dont dont d dont don't d dont don't don't")
    from degen.detect.prefixes import _chain_in, _may_hold
    if _chain_in(text, DEFAULT) is not None:
        assert _may_hold(text, DEFAULT)
