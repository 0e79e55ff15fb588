"""Searches through the knowledge base's front door: hits and their snippets."""

from ctxmode.store import planning, querying
from ctxmode.store.knowledge import KnowledgeBase

SECTION = """# Util

## `util.promisify(original)`

<!-- YAML
added: v8.0.0
-->

* `original` {Function}

Takes a function following the common error-first callback style, and returns
a version that returns promises.

"""
EXAMPLE = "```js\nconst stat = util.promisify(fs.stat);\n" + "stat('.');\n" * 40 + "```\n\n"


def test_a_heading_names_the_query_when_it_holds_every_term(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_text("util", "# Util\nutil promisify buffer\n")
        plan = planning.plan_query(kb.conn, "util.promisify")
        assert querying._names("Util > `util.promisify(original)`", plan)
        assert not querying._names("`util.promisify(original)` > Examples", plan)
        assert not querying._names("Util > `util.inspect()`", plan)


def test_the_section_an_identifier_heads_is_shown_from_what_it_does(tmp_path):
    with KnowledgeBase.open(str(tmp_path)) as kb:
        kb.index_text("nodejs:util", SECTION + EXAMPLE * 4)
        hit = kb.search(["util.promisify"], limit=1)[0].hits[0]
    assert hit.title == "Util > `util.promisify(original)`"
    assert "Takes a function following the common error-first callback style" in hit.snippet
