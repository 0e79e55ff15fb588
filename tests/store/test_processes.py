"""Real subprocesses: concurrent writers, and the peak memory of indexing a 100 MB file."""

import json
import subprocess
import sys
import textwrap

import pytest

from ctxmode.store.knowledge import KnowledgeBase

WRITER = textwrap.dedent(
    """
    import sys
    from ctxmode.store.knowledge import KnowledgeBase
    root, worker = sys.argv[1], int(sys.argv[2])
    with KnowledgeBase.open(root) as kb:
        print("ready", flush=True)
        sys.stdin.readline()  # start together
        for i in range(50):
            body = "".join(
                f"# Part {j}\\nworker{worker}marker section {j} of source {i}\\n\\n" for j in range(10)
            )
            assert kb.index_text(f"w{worker}-{i}", body).chunk_count == 10
    print("done", flush=True)
    """
)


def test_four_processes_writing_500_chunks_each_lose_nothing(tmp_path, subprocess_env):
    root = str(tmp_path)
    KnowledgeBase.open(root).close()  # create and migrate once, like a server would
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, root, str(n)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env,
        )
        for n in range(4)
    ]
    for proc in procs:
        assert proc.stdout.readline().strip() == "ready"
    for proc in procs:
        proc.stdin.write("go\n")
        proc.stdin.flush()
    for proc in procs:
        out, err = proc.communicate(timeout=240)
        assert proc.returncode == 0, err
        assert out.strip() == "done"
    with KnowledgeBase.open(root) as kb:
        assert kb.chunk_count() == 2000
        assert len(kb.sources()) == 200
        for n in range(4):
            hits = kb.search([f"worker{n}marker"], limit=100)[0].hits
            assert len(hits) == 100 and all(h.source.startswith(f"w{n}-") for h in hits)


MEASURE = textwrap.dedent(
    """
    import json, resource, sys
    from ctxmode.store.knowledge import KnowledgeBase
    root, path = sys.argv[1], sys.argv[2]
    with KnowledgeBase.open(root) as kb:
        # A small page cache, so the peak measures our buffers rather than SQLite's cache.
        kb.conn.execute("PRAGMA cache_size = -2000")
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        result = kb.index_file(path, "big")
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(json.dumps({"growth": after - before, "chunks": result.chunk_count}))
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="uses the resource module")
def test_a_100_mb_file_is_streamed_not_loaded_whole(tmp_path, subprocess_env):
    path = tmp_path / "big.log"
    block = "".join(
        f"2026-01-01 12:00:{i % 60:02d} worker-{i % 7} processed request {i} in {i % 97} ms\n"
        for i in range(20_000)
    )
    size = 0
    with open(path, "w") as f:
        while size < 100 * 1024 * 1024:
            f.write(block)
            size += len(block)
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(tmp_path / "project"), str(path)],
        capture_output=True,
        text=True,
        env=subprocess_env,
        timeout=280,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["chunks"] > 20_000
    # Holding the text even once would grow the peak RSS past the file size; streaming
    # (1 MB blocks, 256-chunk batches) stays far below.
    assert report["growth"] < size // 3, report
