"""A public library network: branches, authors, books, copies, members, loans, fines."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template
from agentgym_envs.envs.sql.databases.words import (
    ADJECTIVES,
    CITIES,
    NOUNS,
    day,
    iso,
    maybe,
    person,
)

DDL = """
CREATE TABLE branches (
    branch_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    opened INTEGER NOT NULL
);
CREATE TABLE authors (
    author_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    birth_yr INTEGER,
    country TEXT
);
CREATE TABLE books (
    book_id INTEGER PRIMARY KEY,
    isbn TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    pub_year INTEGER NOT NULL,
    genre TEXT NOT NULL,
    pages INTEGER,
    publisher TEXT NOT NULL
);
CREATE TABLE book_authors (
    book_id INTEGER NOT NULL REFERENCES books (book_id),
    author_id INTEGER NOT NULL REFERENCES authors (author_id),
    ord INTEGER NOT NULL,
    PRIMARY KEY (book_id, author_id)
);
CREATE TABLE copies (
    copy_id INTEGER PRIMARY KEY,
    book_id INTEGER NOT NULL REFERENCES books (book_id),
    branch_id INTEGER NOT NULL REFERENCES branches (branch_id),
    acquired TEXT NOT NULL,
    cond TEXT NOT NULL
);
CREATE TABLE members (
    member_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    joined TEXT NOT NULL,
    home_branch INTEGER NOT NULL REFERENCES branches (branch_id),
    mtype TEXT NOT NULL,
    email TEXT
);
CREATE TABLE loans (
    loan_id INTEGER PRIMARY KEY,
    copy_id INTEGER NOT NULL REFERENCES copies (copy_id),
    member_id INTEGER NOT NULL REFERENCES members (member_id),
    loan_date TEXT NOT NULL,
    due_date TEXT NOT NULL,
    return_date TEXT
);
CREATE TABLE fines (
    fine_id INTEGER PRIMARY KEY,
    loan_id INTEGER NOT NULL REFERENCES loans (loan_id),
    amount REAL NOT NULL,
    paid INTEGER NOT NULL
);
CREATE INDEX ix_book_authors_author ON book_authors (author_id);
CREATE INDEX ix_copies_book ON copies (book_id);
CREATE INDEX ix_copies_branch ON copies (branch_id);
CREATE INDEX ix_loans_copy ON loans (copy_id);
CREATE INDEX ix_loans_member ON loans (member_id);
CREATE INDEX ix_fines_loan ON fines (loan_id);
"""

GENRES = [
    "Fantasy",
    "Mystery",
    "Science Fiction",
    "Romance",
    "History",
    "Biography",
    "Poetry",
    "Children",
    "Travel",
    "Science",
]
PUBLISHERS = [
    "Northwind Press",
    "Harbor House",
    "Bluebird Books",
    "Granite Publishing",
    "Lantern & Co",
    "Meridian Books",
    "Oakleaf",
]
COUNTRIES = ["USA", "UK", "Canada", "Ireland", "Australia", "India", "Nigeria", "New Zealand", None]
CONDITIONS = ["good"] * 6 + ["worn"] * 3 + ["damaged"]


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    branches = [
        (i + 1, f"{city} Library", city, rng.randint(1902, 2015))
        for i, city in enumerate(CITIES[:10])
    ]
    con.executemany("INSERT INTO branches VALUES (?, ?, ?, ?)", branches)
    authors = []
    for aid in range(1, 301):
        first, last = person(rng)
        authors.append(
            (aid, first, last, maybe(rng, rng.randint(1900, 1995), 0.1), rng.choice(COUNTRIES))
        )
    con.executemany("INSERT INTO authors VALUES (?, ?, ?, ?, ?)", authors)
    books, book_authors, titles = [], [], set()
    while len(books) < 900:
        pattern = rng.randrange(4)
        a, n, m = rng.choice(ADJECTIVES), rng.choice(NOUNS), rng.choice(NOUNS)
        title = [f"The {a} {n}", f"{n} of the {a} {m}", f"A {a} {n}", f"{a} {n}s"][pattern]
        if title in titles:
            continue
        titles.add(title)
        bid = len(books) + 1
        books.append(
            (
                bid,
                f"978{rng.randrange(10**9, 10**10)}",
                title,
                rng.randint(1950, 2024),
                rng.choice(GENRES),
                maybe(rng, rng.randint(90, 820), 0.08),
                rng.choice(PUBLISHERS),
            )
        )
        for k, author in enumerate(
            rng.sample(range(1, 301), rng.choice([1, 1, 1, 1, 2, 3])), start=1
        ):
            book_authors.append((bid, author, k))
    con.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?, ?, ?)", books)
    con.executemany("INSERT INTO book_authors VALUES (?, ?, ?)", book_authors)
    copies = []
    for b in books:
        for branch in rng.sample(range(1, 11), rng.choice([1, 1, 2, 2, 3, 4])):
            acquired = day(rng, dt.date(max(b[3], 1995), 1, 1), dt.date(max(b[3], 2021), 12, 31))
            copies.append((len(copies) + 1, b[0], branch, iso(acquired), rng.choice(CONDITIONS)))
    con.executemany("INSERT INTO copies VALUES (?, ?, ?, ?, ?)", copies)
    members = []
    for mid in range(1, 1401):
        first, last = person(rng)
        members.append(
            (
                mid,
                first,
                last,
                iso(day(rng, dt.date(2010, 1, 1), dt.date(2022, 6, 30))),
                rng.randint(1, 10),
                rng.choice("AAAASSC"),
                maybe(rng, f"{first.lower()}{mid}@post.net", 0.3),
            )
        )
    con.executemany("INSERT INTO members VALUES (?, ?, ?, ?, ?, ?, ?)", members)
    by_branch: dict[int, list[tuple]] = {}
    for c in copies:
        by_branch.setdefault(c[2], []).append(c)
    loans, fines = [], []
    for m in members:
        for _ in range(rng.choice([0, 1, 2, 3, 4, 6, 8])):
            branch = m[4] if rng.random() < 0.8 else rng.randint(1, 10)
            copy = rng.choice(by_branch[branch])
            start = day(rng, dt.date(2022, 7, 1), dt.date(2024, 5, 31))
            due = start + dt.timedelta(days=21)
            returned = (
                None
                if rng.random() < 0.05
                else start
                + dt.timedelta(
                    days=rng.choice([3, 7, 10, 14, 18, 20, 21, 25, 30, 45]) + rng.randint(0, 4)
                )
            )
            lid = len(loans) + 1
            loans.append((lid, copy[0], m[0], iso(start), iso(due), iso(returned)))
            late = ((returned or dt.date(2024, 6, 30)) - due).days
            if late > 0:
                fines.append(
                    (len(fines) + 1, lid, round(min(late * 0.25, 20.0), 2), int(rng.random() < 0.6))
                )
    con.executemany("INSERT INTO loans VALUES (?, ?, ?, ?, ?, ?)", loans)
    con.executemany("INSERT INTO fines VALUES (?, ?, ?, ?)", fines)


NAMED_AUTHOR = "SELECT first_name AS first, last_name AS last FROM authors GROUP BY first_name, last_name HAVING COUNT(*) = 1"
BRANCH_YEAR = "SELECT b.name AS branch, y.year AS year FROM branches b, (SELECT DISTINCT strftime('%Y', loan_date) AS year FROM loans) y"
LOAN_JOIN = "FROM loans AS l JOIN copies AS c ON l.copy_id = c.copy_id JOIN branches AS br ON c.branch_id = br.branch_id"

TEMPLATES = (
    Template(
        "genre_year",
        "simple",
        "SELECT DISTINCT genre, pub_year AS year FROM books",
        "How many {genre} books published in {year} does the library hold?",
        "published in {year} refers to pub_year = {year}",
        "SELECT COUNT(*) FROM books WHERE genre = '{genre}' AND pub_year = {year}",
    ),
    Template(
        "isbn_of_title",
        "simple",
        "SELECT title FROM books",
        "What is the ISBN of the book titled '{title}', and who publishes it?",
        "",
        "SELECT isbn, publisher FROM books WHERE title = '{title}'",
    ),
    Template(
        "author_bibliography",
        "simple",
        NAMED_AUTHOR,
        "List the titles of the books written or co-written by {first} {last}, from the oldest publication to the newest.",
        "oldest to newest refers to ORDER BY pub_year",
        "SELECT b.title FROM books AS b JOIN book_authors AS ba ON ba.book_id = b.book_id JOIN authors AS a ON ba.author_id = a.author_id "
        "WHERE a.first_name = '{first}' AND a.last_name = '{last}' ORDER BY b.pub_year",
        ordered=True,
        min_rows=2,
        keys="SELECT b.pub_year FROM books AS b JOIN book_authors AS ba ON ba.book_id = b.book_id JOIN authors AS a "
        "ON ba.author_id = a.author_id WHERE a.first_name = '{first}' AND a.last_name = '{last}' ORDER BY b.pub_year",
    ),
    Template(
        "author_loans_branch",
        "moderate",
        "SELECT a.first AS first, a.last AS last, b.name AS branch FROM ("
        + NAMED_AUTHOR
        + ") a, branches b",
        "How many times were books by {first} {last} borrowed from the {branch}?",
        "borrowed from a branch refers to loans of copies whose branch_id is that branch",
        "SELECT COUNT(*) "
        + LOAN_JOIN
        + " JOIN book_authors AS ba ON ba.book_id = c.book_id JOIN authors AS a "
        "ON ba.author_id = a.author_id WHERE a.first_name = '{first}' AND a.last_name = '{last}' AND br.name = '{branch}'",
    ),
    Template(
        "unpaid_fines",
        "moderate",
        "SELECT name AS branch FROM branches",
        "Which members whose home branch is the {branch} owe more than 5 dollars in unpaid fines? Give their full names.",
        "full name refers to first_name, last_name; unpaid refers to paid = 0; owe more than 5 dollars refers to SUM(amount) > 5",
        "SELECT m.first_name, m.last_name FROM members AS m JOIN branches AS br ON m.home_branch = br.branch_id "
        "JOIN loans AS l ON l.member_id = m.member_id JOIN fines AS f ON f.loan_id = l.loan_id "
        "WHERE br.name = '{branch}' AND f.paid = 0 GROUP BY m.member_id HAVING SUM(f.amount) > 5",
    ),
    Template(
        "popular_genre",
        "moderate",
        BRANCH_YEAR,
        "Which genre was borrowed most often from the {branch} in {year}?",
        "in {year} refers to strftime('%Y', loan_date) = '{year}'",
        "SELECT b.genre "
        + LOAN_JOIN
        + " JOIN books AS b ON c.book_id = b.book_id WHERE br.name = '{branch}' "
        "AND strftime('%Y', l.loan_date) = '{year}' GROUP BY b.genre ORDER BY COUNT(*) DESC LIMIT 1",
        top=1,
        keys="SELECT COUNT(*) AS n "
        + LOAN_JOIN
        + " JOIN books AS b ON c.book_id = b.book_id WHERE br.name = '{branch}' "
        "AND strftime('%Y', l.loan_date) = '{year}' GROUP BY b.genre ORDER BY n DESC",
    ),
    Template(
        "late_loans",
        "challenging",
        BRANCH_YEAR,
        "How many loans from the {branch} that started in {year} were late, meaning returned after the due date or never returned?",
        "late refers to return_date > due_date OR return_date IS NULL; started in {year} refers to strftime('%Y', loan_date) = '{year}'",
        "SELECT SUM(CASE WHEN l.return_date IS NULL OR l.return_date > l.due_date THEN 1 ELSE 0 END) "
        + LOAN_JOIN
        + " WHERE br.name = '{branch}' AND strftime('%Y', l.loan_date) = '{year}'",
    ),
    Template(
        "days_kept",
        "challenging",
        "SELECT g.genre AS genre, y.year AS year FROM (SELECT DISTINCT genre FROM books) g, "
        "(SELECT DISTINCT strftime('%Y', loan_date) AS year FROM loans) y",
        "On average, for how many days did borrowers keep {genre} books borrowed in {year}, counting returned loans only? Round to one decimal.",
        "days kept = julianday(return_date) - julianday(loan_date); returned refers to return_date IS NOT NULL",
        "SELECT ROUND(AVG(julianday(l.return_date) - julianday(l.loan_date)), 1) FROM loans AS l JOIN copies AS c ON l.copy_id = c.copy_id "
        "JOIN books AS b ON c.book_id = b.book_id WHERE b.genre = '{genre}' AND strftime('%Y', l.loan_date) = '{year}' AND l.return_date IS NOT NULL",
    ),
    Template(
        "nth_most_borrowed",
        "challenging",
        "SELECT b.branch AS branch, b.year AS year, n.n AS n, n.word AS nth FROM ("
        + BRANCH_YEAR
        + ") b, "
        "(SELECT 2 AS n, 'second' AS word UNION ALL SELECT 3, 'third') n",
        "Which genre was the {nth} most borrowed at the {branch} in {year}, and how many loans did it have there?",
        "{nth} most borrowed refers to rank {n} by COUNT(loan_id) in descending order; in {year} refers to strftime('%Y', loan_date) = '{year}'",
        "SELECT genre, n FROM (SELECT b.genre, COUNT(*) AS n, DENSE_RANK() OVER (ORDER BY COUNT(*) DESC) AS rnk "
        + LOAN_JOIN
        + " JOIN books AS b ON c.book_id = b.book_id WHERE br.name = '{branch}' AND strftime('%Y', l.loan_date) = '{year}' "
        "GROUP BY b.genre) WHERE rnk = {n}",
        top="n",
        keys="SELECT COUNT(*) AS n "
        + LOAN_JOIN
        + " JOIN books AS b ON c.book_id = b.book_id WHERE br.name = '{branch}' "
        "AND strftime('%Y', l.loan_date) = '{year}' GROUP BY b.genre ORDER BY n DESC",
    ),
    Template(
        "never_borrowed",
        "challenging",
        "SELECT b.name AS branch, g.genre AS genre FROM branches b, (SELECT DISTINCT genre FROM books) g",
        "Which {genre} books have a copy at the {branch} that was never borrowed? List the titles.",
        "never borrowed refers to a copy with no row in loans",
        "SELECT DISTINCT b.title FROM copies AS c JOIN books AS b ON c.book_id = b.book_id JOIN branches AS br ON c.branch_id = br.branch_id "
        "WHERE br.name = '{branch}' AND b.genre = '{genre}' AND c.copy_id NOT IN (SELECT copy_id FROM loans)",
        max_rows=25,
    ),
)

SPEC = DatabaseSpec(
    name="library",
    summary="A city library network's branches, authors, books and their copies, members, loans and late fines.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "authors.birth_yr": "year of birth; NULL when unknown",
        "books.pages": "page count; NULL when unknown",
        "book_authors.ord": "position of the author in the book's author list (1 = first author)",
        "copies.cond": "physical condition: good, worn or damaged",
        "members.home_branch": "branch_id where the member registered",
        "members.mtype": "membership type: 'A' adult, 'S' student, 'C' child",
        "loans.due_date": "date the copy had to be returned (21 days after loan_date)",
        "loans.return_date": "date the copy came back; NULL if never returned",
        "fines.amount": "late fee in US dollars (0.25 per day late, at most 20)",
        "fines.paid": "1 if the fine has been paid, else 0",
    },
    templates=TEMPLATES,
    seed=505,
)
