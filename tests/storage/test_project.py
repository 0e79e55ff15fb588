import os
import subprocess

from ctxmode.storage import project


def test_git_root_is_the_project(tmp_path):
    (tmp_path / ".git").mkdir()
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    assert project.resolve_project_root(cwd=str(sub)) == str(tmp_path.resolve())


def test_directory_itself_without_git(tmp_path):
    assert project.resolve_project_root(cwd=str(tmp_path)) == str(tmp_path.resolve())


def test_explicit_and_env_project_win(tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    assert project.resolve_project_root(str(other), cwd="/") == str(other.resolve())
    monkeypatch.setenv("CTXMODE_PROJECT_DIR", str(other))
    assert project.resolve_project_root(cwd="/") == str(other.resolve())


def test_symlinked_directory_resolves_to_one_key(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    a = project.resolve_project_root(cwd=str(real))
    b = project.resolve_project_root(cwd=str(link))
    assert project.project_key(a) == project.project_key(b)


def test_each_git_worktree_gets_its_own_database(tmp_path):
    main = tmp_path / "main"
    main.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(main)], check=True)
    (main / "f").write_text("x")
    subprocess.run([*git, "-C", str(main), "add", "f"], check=True)
    subprocess.run([*git, "-C", str(main), "commit", "-qm", "init"], check=True)
    wt = tmp_path / "wt"
    subprocess.run([*git, "-C", str(main), "worktree", "add", "-q", str(wt)], check=True)
    root_main = project.resolve_project_root(cwd=str(main))
    root_wt = project.resolve_project_root(cwd=str(wt / "."))
    assert root_wt == str(wt.resolve())
    assert project.project_db_path(root_main) != project.project_db_path(root_wt)
    assert os.path.dirname(project.project_db_path(root_main)).endswith("projects")
