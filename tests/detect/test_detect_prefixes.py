"""Growing prefixes on one line (detect/prefixes.py): every partial result of a
dictation inserted again is a loop; a sentence restarted once or twice, or one word said
again and again, is not this rule's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

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
