"""Every structure of the COLLIE paper's Table 1, in its own notation, with a text that satisfies it and one
that does not: the verdicts and the feedback are exact."""

from __future__ import annotations

import pytest

from corral import parse
from corral.constraints import check

TABLE1 = [
    (
        'word01',
        'word: count(text, char, word) >= 15',
        'internationalization',
        'dog',
        'You wrote a word with 3 characters; it must have at least 15.',
        0.0,
    ),
    (
        'word02',
        "word: count(text, char, word) == 10 and pos(text, char, 1) == 's' and pos(text, char, 3) == 'r' and pos(text, char, 9) == 'e'",
        'straighten',
        'strawberry',
        "The 9th character is 'r'; it must be 'e'.",
        0.75,
    ),
    (
        'word03',
        "word: count(text, char, word) <= 10 and pos(text, char, -1) == 'r'",
        'computer',
        'computers',
        "The last character is 's'; it must be 'r'.",
        0.5,
    ),
    (
        'sent01',
        'sentence: count(text, char, sentence) == 82',
        'The committee met on Tuesday to discuss the budget, and later all of us went home.',
        'The committee met on Tuesday.',
        'You wrote a sentence with 29 characters; it must have exactly 82.',
        0.0,
    ),
    (
        'sent02',
        "sentence: count(text, word, sentence) == 10 and pos(text, word, 3) == 'soft' and pos(text, word, 7) == 'beach' and pos(text, word, 10) == 'math'",
        'I love soft sand on the beach and doing math.',
        'I love soft sand on the beach.',
        "You wrote a sentence with 7 words; it must have exactly 10. There is no 10th word; it must be 'math'.",
        0.5,
    ),
    (
        'sent03',
        'sentence: count(text, word, sentence) >= 20 and count(text, char, word) <= 6',
        'We sat by the old oak tree and ate our lunch as the sun went down over the hills and the lake.',
        'We sat by the magnificent old oak tree and ate lunch.',
        'You wrote a sentence with 11 words; it must have at least 20. Every word must have at most 6 characters, but word 5 has 11 characters.',
        0.0,
    ),
    (
        'sent04',
        "sentence: count(text, word, 'soft') > 0 and count(text, word, 'beach') > 0 and count(text, word, 'math') > 0",
        'On the soft sand of the beach, she did her math homework.',
        'On the sand of the beach, she read.',
        "You wrote a sentence without the words 'soft' and 'math'; it must contain them.",
        0.3333,
    ),
    (
        'para01',
        "paragraph: all(text, sentence, pos(unit, word, 1) == 'soft')",
        'Soft rain fell all night. Soft winds blew. Soft voices sang.',
        'Soft rain fell all night. Hard winds blew. Soft voices sang.',
        "Required: the 1st word of every sentence is 'soft'. The 1st word of sentence 2 is 'Hard'; it must be 'soft'.",
        0.0,
    ),
    (
        'para02',
        "paragraph: count(text, sentence, paragraph) >= 4 and count(text, word, 'the') == 0 and count(text, word, 'and') == 0 and count(text, word, 'of') == 0",
        'Rain fell. Wind blew hard. Birds hid in trees. We stayed inside.',
        'Rain fell on the town. Wind blew and blew. Birds hid.',
        "You wrote a paragraph with 3 sentences; it must have at least 4. You wrote a paragraph containing the words 'the' (1 time) and 'and' (1 time); it must not contain them.",
        0.25,
    ),
    (
        'para03',
        'paragraph: count(text, sentence, paragraph) == 4 and count(text, word, sentence) >= 10 and count(text, word, sentence) <= 15',
        'We walked along the river for an hour before lunch today. The water was cold but the children wanted to swim anyway. After a while we found a quiet spot under some trees. Everyone agreed it was the best afternoon of the whole summer.',
        'We walked along the river. The water was cold but the children wanted to swim anyway. After a while we found a quiet spot under some trees. Everyone agreed it was the best afternoon of the whole summer.',
        'Every sentence must have at least 10 words, but sentence 1 has 5 words.',
        0.6667,
    ),
    (
        'para04',
        'paragraph: count(text, sentence, paragraph) >= 3 and count(text, word, sentence) >= 15',
        'The old lighthouse stood at the edge of the cliff for more than two hundred years. Every night its keeper climbed the narrow stairs to light the great lamp at the top. Ships far out at sea relied on that steady beam to find their way safely home.',
        'The old lighthouse stood at the edge of the cliff for more than two hundred years. It was tall. Ships far out at sea relied on that steady beam to find their way safely home.',
        'Every sentence must have at least 15 words, but sentence 2 has 3 words.',
        0.5,
    ),
    (
        'para05',
        "paragraph: count(text, sentence, paragraph) == 2 and pos(pos(text, sentence, 1), word, -1) == 'math' and pos(pos(text, sentence, 2), word, -1) == 'rock'",
        'She spent the evening doing math. Then she listened to rock.',
        'She spent the evening doing homework. Then she listened to rock.',
        "The last word of the 1st sentence is 'homework'; it must be 'math'.",
        0.6667,
    ),
    (
        'pass01',
        "passage: count(text, paragraph, passage) == 2 and pos(pos(text, paragraph, 1), sentence, -1) == 'I sit.' and pos(pos(text, paragraph, 2), sentence, -1) == 'I cry.'",
        'The day is long. I sit.\n\nThe night is longer. I cry.',
        'The day is long. I sit.\n\nThe night is longer. I sleep.',
        "The last sentence of the 2nd paragraph is 'I sleep.'; it must be 'I cry.'.",
        0.6667,
    ),
]


@pytest.mark.parametrize(("name", "spec", "good", "bad", "feedback", "score"), TABLE1, ids=[r[0] for r in TABLE1])
def test_table1(name, spec, good, bad, feedback, score):
    constraint = parse(spec)
    passed = check(constraint, good)
    assert passed.passed, passed.feedback
    assert passed.feedback == ""
    assert passed.score == 1.0
    failed = check(constraint, bad)
    assert not failed.passed
    assert failed.feedback == feedback
    assert failed.score == pytest.approx(score, abs=1e-4)
    assert all(part.passed for part in passed.detail.parts)
    assert [p for p in failed.detail.parts if not p.passed]
