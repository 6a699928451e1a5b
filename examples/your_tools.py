"""Make a small world for `docs/your-tools.md`: a git repository and a SQLite shop
database, each with 20 questions for the reference MCP servers that serve them.

    python examples/your_tools.py /tmp/demo
    agentprop run --agent examples/mcp_client.py:agent \\
      --upstream 'python -m mcp_server_git --repository /tmp/demo/repo' \\
      --tasks /tmp/demo/git.jsonl -c baseline -c p2:all -c out:all --seed 0 --seed 1 -w W

Deterministic: the same folder always gets the same commits, rows and questions (commit
hashes differ, since they include the time).
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ITEMS = [("lamp", 39.5, 3), ("desk", 189.0, 1), ("chair", 74.25, 4), ("shelf", 59.9, 2),
         ("rug", 120.0, 1), ("clock", 24.99, 6)]
CUSTOMERS = ["Ada", "Grace", "Linus", "Barbara"]


def make_repo(repo: Path) -> None:
    """Six commits by two authors on `main`, and a `feature/search` branch."""
    repo.mkdir(parents=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "dev@example.com")
    for i, (name, author) in enumerate([("README.md", "Ada"), ("app.py", "Grace"),
                                        ("app.py", "Ada"), ("tests.py", "Grace"),
                                        ("setup.cfg", "Ada"), ("app.py", "Grace")]):
        git("config", "user.name", author)
        with (repo / name).open("a") as f:
            f.write(f"# change {i + 1}\n")
        git("add", name)
        git("commit", "-q", "-m", f"Change {i + 1}: update {name}")
    git("branch", "feature/search")
    (repo / "notes.txt").write_text("draft\n")  # untracked, for the status questions


def make_shop(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL,"
                     " stock INTEGER)")
        conn.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, customer TEXT,"
                     " item_id INTEGER, quantity INTEGER)")
        conn.executemany("INSERT INTO items (name, price, stock) VALUES (?, ?, ?)", ITEMS)
        conn.executemany("INSERT INTO orders (customer, item_id, quantity) VALUES (?, ?, ?)",
                         [(CUSTOMERS[i % 4], i % 6 + 1, i % 3 + 1) for i in range(10)])


def git_questions(repo: Path) -> list[dict[str, object]]:
    r = str(repo)
    return [
        {"query": f"What is the message of the most recent commit in {r}?",
         "reference": "Change 6: update app.py"},
        {"query": f"Who made the most recent commit in the repository {r}?",
         "reference": "Grace"},
        {"query": f"Show the last 3 commits of the repository {r}."},
        {"query": f"How many commits does the git log of {r} show?", "reference": "6"},
        {"query": f"What is the git status of {r}?"},
        {"query": f"Is there an untracked file in {r}? Name it.", "reference": "notes.txt"},
        {"query": f"Which branches does the repository {r} have?",
         "reference": "main and feature/search"},
        {"query": f"Which branch is checked out in {r}?", "reference": "main"},
        {"query": f"Which file did the latest commit of {r} change?", "reference": "app.py"},
        {"query": f"What did the first commit of {r} add?", "reference": "README.md"},
        {"query": f"Are there staged changes in {r}?", "reference": "No"},
        {"query": f"Are there unstaged changes in {r}?", "reference": "No"},
        {"query": f"Show the diff of the last commit in {r}."},
        {"query": f"Who wrote the commit 'Change 3: update app.py' in {r}?",
         "reference": "Ada"},
        {"query": f"List the last 2 commit messages of {r}."},
        {"query": f"Does {r} have a branch named feature/search?", "reference": "Yes"},
        {"query": f"What is the second most recent commit message in {r}?",
         "reference": "Change 5: update setup.cfg"},
        {"query": f"Which author made more commits in {r}, Ada or Grace?",
         "reference": "Both made 3"},
        {"query": f"Show the log of {r} with at most 1 entry."},
        {"query": f"What does the commit 'Change 4: update tests.py' in {r} change?"},
    ]


def sqlite_questions() -> list[dict[str, object]]:
    q = "query: `{}`"
    return [
        {"query": "Which tables does the shop database have?", "reference": "items, orders"},
        {"query": "Describe the table items.", "tools": ["describe_table"]},
        {"query": "How many items are in stock in total? "
         + q.format("SELECT SUM(stock) FROM items"), "reference": "17"},
        {"query": "What is the price of the desk? "
         + q.format("SELECT price FROM items WHERE name = 'desk'"), "reference": "189.0"},
        {"query": "Which item is the cheapest? "
         + q.format("SELECT name FROM items ORDER BY price LIMIT 1"), "reference": "clock"},
        {"query": "How many orders are there? " + q.format("SELECT COUNT(*) FROM orders"),
         "reference": "10"},
        {"query": "How many orders did Ada place? "
         + q.format("SELECT COUNT(*) FROM orders WHERE customer = 'Ada'"), "reference": "3"},
        {"query": "Which customers ordered something? "
         + q.format("SELECT DISTINCT customer FROM orders")},
        {"query": "How many lamps are in stock? "
         + q.format("SELECT stock FROM items WHERE name = 'lamp'"), "reference": "3"},
        {"query": "What is the most expensive item? "
         + q.format("SELECT name FROM items ORDER BY price DESC LIMIT 1"),
         "reference": "desk"},
        {"query": "What is the average item price? "
         + q.format("SELECT AVG(price) FROM items")},
        {"query": "How many different items does the shop sell? "
         + q.format("SELECT COUNT(*) FROM items"), "reference": "6"},
        {"query": "Which items cost more than 100? "
         + q.format("SELECT name FROM items WHERE price > 100"), "reference": "desk, rug"},
        {"query": "How many clocks are in stock? "
         + q.format("SELECT stock FROM items WHERE name = 'clock'"), "reference": "6"},
        {"query": "Which item has the most stock? "
         + q.format("SELECT name FROM items ORDER BY stock DESC LIMIT 1"),
         "reference": "clock"},
        {"query": "What did Grace order? "
         + q.format("SELECT item_id, quantity FROM orders WHERE customer = 'Grace'")},
        {"query": "What is the total quantity ordered? "
         + q.format("SELECT SUM(quantity) FROM orders"), "reference": "19"},
        {"query": "Describe the table orders.", "tools": ["describe_table"]},
        {"query": "What does the chair cost? "
         + q.format("SELECT price FROM items WHERE name = 'chair'"), "reference": "74.25"},
        {"query": "How many shelves are in stock? "
         + q.format("SELECT stock FROM items WHERE name = 'shelf'"), "reference": "2"},
    ]


def main(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    if (folder / "repo").exists() or (folder / "shop.db").exists():
        sys.exit(f"{folder} already holds a demo world: use a new folder")
    make_repo(folder / "repo")
    make_shop(folder / "shop.db")
    for name, rows in (("git.jsonl", git_questions(folder / "repo")),
                       ("sqlite.jsonl", sqlite_questions())):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    print(f"{folder}/repo, {folder}/shop.db, and 20 questions each in {folder}/git.jsonl "
          f"and {folder}/sqlite.jsonl")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python examples/your_tools.py FOLDER")
    main(Path(sys.argv[1]))
