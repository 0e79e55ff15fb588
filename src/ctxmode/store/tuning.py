"""Every tuning constant of the search pipeline, in one place: planning, retrieval, re-ranking.

Each was set against bench/search.py; change one only with a before/after run of it.
"""

# ---------------------------------------------------------------- query planning
EXPANSIONS_PER_TERM = 6  # vocabulary words a fragment expands to
FRAGMENT_CANDIDATES = 300  # vocabulary words containing a fragment that are looked at
TYPO_CANDIDATES = 200  # vocabulary words sharing trigrams with a misspelt word ...
TYPO_RANKED = 3000  # ... ranked among the words holding its rarest trigrams, about this many
PREFIX_CANDIDATES = 2000  # vocabulary words beginning like a misspelt word
RARE_WORD_CHUNKS = 3  # a vocabulary word in at most this many chunks may be a typo ...
COMMONER_BY = 30  # ... of a word one edit away that is in this many times more chunks
TYPO_RATIO = 20  # a word is a likely typo of one an edit away in this many times more chunks
FARTHER_CHECKED = 4  # words one edit farther than the closest whose frequency is compared
PHRASE_MAX_TERMS = 4  # queries this short are also searched as one exact phrase
IDF_CAP = 2000  # chunk frequencies are counted up to this (a common word is common enough)
COMPLETED_FRAGMENT = 3  # an identifier's last part shorter than this is completed from ...
COMPLETION_SCAN = 400  # ... the chunks holding the rest of it, when at most this many ...
COMPLETIONS_MAX = 30  # ... and it completes to at most this many words (else FTS5 expands it)

# ---------------------------------------------------------------- retrieval and fusion
RRF_K = 60
CANDIDATE_DEPTH = 20  # chunks each ranked list contributes
PARTIAL_FROM_TERMS = 5  # questions this long also search with each term left out
PARTIAL_SKIPS = 6  # ... each of the commonest few left out in turn
PARTIAL_FILL = 10  # ... else the rarest terms, fewer and fewer, until this many chunks match
DEFINITION_TERMS = 2  # queries of at most this many terms also look for definition lines ...
DEFINITION_SCAN = 300  # ... when at most this many chunks match them
# An OR of terms ranks the chunks of its rarest terms, about this many (2000 lost a held-out
# question whose answer held only its commoner words).
ANY_TERM_ROWS = 5000

# ---------------------------------------------------------------- re-ranking
RERANK_POOL = 15  # fused chunks whose matches are examined
RERANK_WEIGHT = 0.5  # the match-shape boost, against the fused score scaled to the best's
SAME_SOURCE_PENALTY = 0.1  # per hit already shown from the same source
NAMED_WEIGHT = 1.0  # boost for a source named after the query's terms (tar(1) for "tar")
PREFIX_NAMED = 0.5  # ... half that when an identifier's first part names it (CLONE_NEWPID)
NAMESPACE_PREFIX = 4  # a query word this long names a label's collection it begins ("node")
LEAD_WEIGHT = 0.3  # boost for a source's first chunk (its summary: a man page's NAME)
ADJACENT_GAP = 12  # chars between two terms that still count as "next to each other"
DEFINITION_LEAD = 24  # a term that opens a line may sit inside its first word ("PR_SET_", "--")
SINGLE_TERM_DEFINES = 4.0  # a definition line weighs more when the query is one term
DEFINITION_LINE = 48  # a definition line is short: "SO_REUSEPORT (since Linux 3.9)"
GIST_CHARS = 120  # the opening of a chunk's body that says what it is about
# Each match-shape feature's weight in the boost (the features are 0..1).
WEIGHTS = {"coverage": 0.3, "proximity": 0.15, "phrase": 0.15, "line": 0.2, "title": 0.1,
           "defines": 0.1, "exact": 0.1, "verbatim": 0.15, "gist": 0.1}  # fmt: skip

# ---------------------------------------------------------------- threads (JSON records)
THREAD_SCAN = 40  # chunks after a matched post read for its replies
THREAD_SHARE = 1.0  # a reply joins the re-ranking with this share of its post's fused score
REPLY_WEIGHT = 0.6  # boost for a reply, for a question or a symptom (answers are replies)
CUE_WEIGHT = 0.6  # ... and more for one that reads like the answer the question asks for
NOT_ANSWER_WEIGHT = 0.4  # less for a reply by the asker, or one that only asks back
ANSWER_MIN_WORDS = 5  # a reply shorter than this confirms or thanks; it does not explain
