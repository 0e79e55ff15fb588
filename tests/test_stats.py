from ctxmode import stats
from ctxmode.storage import schema


def test_saving_is_capped_at_what_the_host_would_show():
    assert stats.kept_out(1_000_000, 2_000, cap=30_000) == 28_000
    assert stats.kept_out(4_000, 4_000, cap=30_000) == 0
    assert stats.kept_out(100, 500, cap=30_000) == 0


def test_indexing_is_not_saving(tmp_path):
    conn = schema.open_project_db(str(tmp_path))
    stats.record(
        conn,
        stats.ToolCall(
            "ctx_index",
            bytes_processed=50_000,
            bytes_returned=100,
            bytes_indexed=50_000,
            saves_context=False,
        ),
    )
    stats.record(conn, stats.ToolCall("ctx_execute", bytes_processed=50_000, bytes_returned=1_000))
    rows = {r.tool: r for r in stats.totals(conn)}
    assert rows["ctx_index"].bytes_kept_out == 0
    assert rows["ctx_index"].bytes_indexed == 50_000
    assert rows["ctx_execute"].bytes_kept_out == stats.DEFAULT_HOST_OUTPUT_CAP - 1_000
    report = stats.render_report(list(rows.values()), "t")
    assert "ctx_execute | 1 |" in report and "bytes / 4" in report
    conn.close()
