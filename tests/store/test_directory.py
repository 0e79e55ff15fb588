import os

import pytest

from ctxmode.store.knowledge import KnowledgeBase, StoreInputError


@pytest.fixture
def kb(tmp_path):
    with KnowledgeBase.open(str(tmp_path / "project")) as kb:
        yield kb


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    files = {
        "README.md": "# Readme\nwelcome aardvark\n",
        "src/app.py": "def main():\n    return 'badger'\n",
        "src/deep/a/b/c/d/e/too_deep.md": "# Deep\ncaribou\n",
        "build/output.md": "# Built\ndingo\n",
        "logs/run.log": "emu sighted\n",
        "notes/keep.log": "ferret kept\n",
        "data/blob.bin": b"\x00\x01\x02binary",
        ".gitignore": "build/\n*.log\n!keep.log\n",
    }
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def labels(kb):
    return sorted(s.label for s in kb.sources())


def test_directory_indexing_honours_gitignore_and_skips_binaries(kb, tree):
    result = kb.index_directory(str(tree), label_prefix="t")
    assert labels(kb) == [
        "t:.gitignore",
        "t:README.md",
        "t:notes/keep.log",
        "t:src/app.py",
    ]
    assert result.indexed == 4 and result.skipped_binary == 1 and result.failed == 0
    assert result.chunk_count == sum(r.chunk_count for r in result.results)
    assert kb.search(["dingo"])[0].hits == []
    assert kb.search(["ferret"])[0].hits[0].source == "t:notes/keep.log"


def test_gitignore_can_be_ignored_and_depth_limited(kb, tree):
    kb.index_directory(str(tree), label_prefix="t", respect_gitignore=False, max_depth=2)
    found = labels(kb)
    assert "t:build/output.md" in found and "t:logs/run.log" in found
    assert not any("too_deep" in label for label in found)
    kb.purge()
    kb.index_directory(str(tree), label_prefix="t", max_depth=10)
    assert "t:src/deep/a/b/c/d/e/too_deep.md" in labels(kb)


def test_include_exclude_and_extensions(kb, tree):
    kb.index_directory(str(tree), label_prefix="t", extensions=["md"])
    assert labels(kb) == ["t:README.md"]
    kb.purge()
    kb.index_directory(str(tree), label_prefix="t", include=["src/*"], max_depth=10)
    assert labels(kb) == ["t:src/app.py", "t:src/deep/a/b/c/d/e/too_deep.md"]
    kb.purge()
    kb.index_directory(str(tree), label_prefix="t", exclude=["src", "*.md"])
    assert labels(kb) == ["t:.gitignore", "t:notes/keep.log"]


def test_max_files_caps_and_counts_the_rest_and_progress_counts_bytes(kb, tree):
    seen = []
    result = kb.index_directory(
        str(tree),
        label_prefix="t",
        max_files=2,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert result.indexed == 2 and result.capped == 2  # 5 files pass the filters, one binary
    assert len(seen) == 2 and seen[-1][0] == seen[-1][1] == result.read_bytes  # bytes


def test_symlinks_are_not_followed_by_default(kb, tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\nplatypus\n")
    os.symlink(outside, tree / "linked")
    os.symlink(outside / "secret.md", tree / "secret-link.md")
    kb.index_directory(str(tree), label_prefix="t")
    assert not any("secret" in label or "linked" in label for label in labels(kb))
    kb.index_directory(str(tree), label_prefix="t", follow_symlinks=True)
    # Two links to one file: one source, whichever way the walk reached it last.
    secret = [label for label in labels(kb) if "secret" in label]
    assert secret in (["t:linked/secret.md"], ["t:secret-link.md"])


def test_without_a_prefix_files_are_labelled_by_their_path_and_missing_dirs_are_refused(kb, tree):
    result = kb.index_directory(str(tree / "src"), max_depth=0)
    app = os.path.realpath(tree / "src" / "app.py")  # outside the project: the absolute path
    assert labels(kb) == [app]
    assert result.source_filter == os.path.realpath(tree / "src") + "/"
    with pytest.raises(StoreInputError, match="no such directory"):
        kb.index_directory(str(tree / "nope"))


def test_a_subdirectory_honours_the_repository_gitignore_above_it(kb, tmp_path):
    repo = tmp_path / "repo"
    docs = repo / "docs" / "api"
    docs.mkdir(parents=True)
    (repo / ".git").mkdir()
    (repo / ".gitignore").write_text("*.draft.md\ndocs/api/private/\n")
    (repo / "docs" / ".gitignore").write_text("api/generated.md\n")
    (docs / "public.md").write_text("# Public\n\nkept\n")
    (docs / "wip.draft.md").write_text("# Draft\n\nignored by the root rules\n")
    (docs / "generated.md").write_text("# Gen\n\nignored by docs/.gitignore\n")
    (docs / "private").mkdir()
    (docs / "private" / "keys.md").write_text("# Keys\n\nignored directory\n")
    result = kb.index_directory(str(docs), label_prefix="api")
    assert [r.label for r in result.results] == ["api:public.md"]


def test_outside_a_repository_only_the_walked_tree_gitignore_counts(kb, tmp_path):
    parent = tmp_path / "plain"
    sub = parent / "sub"
    sub.mkdir(parents=True)
    (parent / ".gitignore").write_text("*.md\n")
    (sub / "a.md").write_text("# A\n\nstill indexed: no repository here\n")
    assert kb.index_directory(str(sub), label_prefix="s").indexed == 1


def test_a_worktree_git_file_and_finder_litter_count_as_tool_files(kb, tmp_path):
    tree = tmp_path / "wt"
    tree.mkdir()
    (tree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    (tree / ".DS_Store").write_text("finder\n")
    (tree / "notes.md").write_text("# Notes\nkept\n")
    result = kb.index_directory(str(tree), label_prefix="w")
    assert labels(kb) == ["w:notes.md"]
    assert result.skipped["tool_directory"].count == 2


def test_two_folders_of_the_same_name_keep_their_own_sources(tmp_path):
    project = tmp_path / "project"
    for side in ("a", "b"):
        (project / side / "docs").mkdir(parents=True)
        (project / side / "docs" / "guide.md").write_text(f"# Guide\n{side}-only word\n")
    with KnowledgeBase.open(str(project)) as kb:
        kb.index_directory(str(project / "a" / "docs"))
        result = kb.index_directory(str(project / "b" / "docs"))
        assert labels(kb) == ["a/docs/guide.md", "b/docs/guide.md"]
        assert result.labels_text == "b/docs/<file>"


def test_a_file_reached_by_any_path_is_one_source_and_unchanged_files_are_skipped(tmp_path):
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    readme = project / "docs" / "README.md"
    readme.write_text("# Readme\nwombat\n")
    with KnowledgeBase.open(str(project)) as kb:
        first = kb.index_file(str(readme))
        again = kb.index_file(str(project / "docs" / ".." / "docs" / "README.md"))
        assert (first.unchanged, again.unchanged) == (False, True)
        kb.index_file(str(readme), "renamed")  # a new label replaces the old one
        assert labels(kb) == ["renamed"]
        walked = kb.index_directory(str(project))  # the folder's label for it wins now
        assert labels(kb) == ["docs/README.md"] and walked.indexed == 1
        rewalked = kb.index_directory(str(project))
        assert (rewalked.indexed, rewalked.unchanged) == (0, 1)
        readme.write_text("# Readme\nwombat and numbat\n")
        changed = kb.index_directory(str(project))
        assert (changed.indexed, changed.unchanged) == (1, 0)
        assert kb.search(["numbat"])[0].hits[0].source == "docs/README.md"
