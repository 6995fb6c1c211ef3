"""A university: departments, teachers, students, courses, sections, enrolments, clubs."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template
from agentgym_envs.envs.sql.databases.words import CITIES, day, iso, maybe, person

DDL = """
CREATE TABLE departments (
    dept_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    building TEXT NOT NULL,
    budget INTEGER NOT NULL
);
CREATE TABLE teachers (
    teacher_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    dept_id INTEGER NOT NULL REFERENCES departments (dept_id),
    hire_date TEXT NOT NULL,
    salary INTEGER NOT NULL,
    email TEXT
);
CREATE TABLE students (
    student_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    birth_date TEXT NOT NULL,
    gender TEXT NOT NULL,
    enr_yr INTEGER NOT NULL,
    home_city TEXT NOT NULL,
    advisor_id INTEGER REFERENCES teachers (teacher_id),
    schol_amt REAL
);
CREATE TABLE courses (
    course_id INTEGER PRIMARY KEY,
    code TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    dept_id INTEGER NOT NULL REFERENCES departments (dept_id),
    credits INTEGER NOT NULL,
    lvl INTEGER NOT NULL
);
CREATE TABLE sections (
    section_id INTEGER PRIMARY KEY,
    course_id INTEGER NOT NULL REFERENCES courses (course_id),
    teacher_id INTEGER NOT NULL REFERENCES teachers (teacher_id),
    term TEXT NOT NULL,
    room TEXT,
    capacity INTEGER NOT NULL
);
CREATE TABLE enrollments (
    student_id INTEGER NOT NULL REFERENCES students (student_id),
    section_id INTEGER NOT NULL REFERENCES sections (section_id),
    enrolled_on TEXT NOT NULL,
    score REAL,
    grade TEXT,
    PRIMARY KEY (student_id, section_id)
);
CREATE TABLE clubs (
    club_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    founded INTEGER NOT NULL,
    sponsor_id INTEGER REFERENCES teachers (teacher_id)
);
CREATE TABLE club_members (
    club_id INTEGER NOT NULL REFERENCES clubs (club_id),
    student_id INTEGER NOT NULL REFERENCES students (student_id),
    joined_on TEXT NOT NULL,
    role TEXT NOT NULL,
    PRIMARY KEY (club_id, student_id)
);
CREATE INDEX ix_teachers_dept ON teachers (dept_id);
CREATE INDEX ix_students_advisor ON students (advisor_id);
CREATE INDEX ix_courses_dept ON courses (dept_id);
CREATE INDEX ix_sections_course ON sections (course_id);
CREATE INDEX ix_sections_teacher ON sections (teacher_id);
CREATE INDEX ix_enrollments_section ON enrollments (section_id);
CREATE INDEX ix_club_members_student ON club_members (student_id);
"""

DEPARTMENTS = [
    (
        "Mathematics",
        "Euler Hall",
        [
            "Calculus",
            "Linear Algebra",
            "Probability",
            "Number Theory",
            "Topology",
            "Statistics",
            "Real Analysis",
            "Discrete Mathematics",
            "Numerical Methods",
            "Geometry",
        ],
    ),
    (
        "Physics",
        "Curie Building",
        [
            "Mechanics",
            "Electromagnetism",
            "Quantum Physics",
            "Thermodynamics",
            "Optics",
            "Astrophysics",
            "Relativity",
            "Solid State Physics",
            "Nuclear Physics",
            "Acoustics",
        ],
    ),
    (
        "Computer Science",
        "Turing Center",
        [
            "Programming",
            "Algorithms",
            "Databases",
            "Operating Systems",
            "Networks",
            "Compilers",
            "Machine Learning",
            "Computer Graphics",
            "Security",
            "Distributed Systems",
        ],
    ),
    (
        "History",
        "Gibbon Hall",
        [
            "Ancient Rome",
            "Medieval Europe",
            "Modern Asia",
            "World Wars",
            "Colonial America",
            "Renaissance",
            "Cold War",
            "Ottoman Empire",
            "Industrial Revolution",
            "Historiography",
        ],
    ),
    (
        "Biology",
        "Darwin Labs",
        [
            "Cell Biology",
            "Genetics",
            "Ecology",
            "Microbiology",
            "Botany",
            "Zoology",
            "Evolution",
            "Biochemistry",
            "Neuroscience",
            "Immunology",
        ],
    ),
    (
        "Economics",
        "Smith House",
        [
            "Microeconomics",
            "Macroeconomics",
            "Econometrics",
            "Game Theory",
            "Public Finance",
            "Labor Economics",
            "Development Economics",
            "Finance",
            "Trade Policy",
            "Behavioral Economics",
        ],
    ),
    (
        "Literature",
        "Austen Hall",
        [
            "Poetry",
            "The Novel",
            "Drama",
            "Creative Writing",
            "Shakespeare",
            "Modernism",
            "Literary Theory",
            "World Literature",
            "Romanticism",
            "Short Fiction",
        ],
    ),
    (
        "Chemistry",
        "Lavoisier Labs",
        [
            "General Chemistry",
            "Organic Chemistry",
            "Inorganic Chemistry",
            "Physical Chemistry",
            "Analytical Chemistry",
            "Polymers",
            "Spectroscopy",
            "Electrochemistry",
            "Medicinal Chemistry",
            "Catalysis",
        ],
    ),
]
TERMS = ["2021F", "2022S", "2022F", "2023S", "2023F", "2024S"]
CLUBS = [
    "Chess Club",
    "Debate Society",
    "Robotics Team",
    "Drama Guild",
    "Hiking Club",
    "Jazz Band",
    "Photography Circle",
    "Model United Nations",
    "Astronomy Club",
    "Film Society",
    "Coding Club",
    "Choir",
]
ROLES = ["member"] * 8 + ["treasurer", "secretary"]


def _grade(score: float | None) -> str | None:
    if score is None:
        return None
    for limit, letter in ((90, "A"), (80, "B"), (70, "C"), (60, "D")):
        if score >= limit:
            return letter
    return "F"


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    con.executemany(
        "INSERT INTO departments VALUES (?, ?, ?, ?)",
        [
            (i + 1, name, building, rng.randrange(400, 2400) * 1000)
            for i, (name, building, _) in enumerate(DEPARTMENTS)
        ],
    )
    teachers = []
    for tid in range(1, 81):
        first, last = person(rng)
        dept = (tid - 1) % len(DEPARTMENTS) + 1
        email = maybe(rng, f"{first[0].lower()}{last.lower()}{tid}@univ.edu", 0.15)
        hired = day(rng, dt.date(1995, 1, 1), dt.date(2023, 8, 31))
        teachers.append(
            (
                tid,
                first,
                last,
                dept,
                iso(hired),
                rng.randrange(52, 160) * 1000 + rng.randrange(0, 1000),
                email,
            )
        )
    con.executemany("INSERT INTO teachers VALUES (?, ?, ?, ?, ?, ?, ?)", teachers)
    students = []
    for sid in range(1, 1501):
        first, last = person(rng)
        year = rng.choice([2019, 2020, 2021, 2021, 2022, 2022, 2023, 2023])
        born = day(rng, dt.date(year - 21, 1, 1), dt.date(year - 17, 12, 31))
        advisor = maybe(rng, rng.randint(1, 80), 0.2)
        schol = maybe(rng, round(rng.randrange(500, 15000, 50) + rng.random(), 2), 0.6)
        students.append(
            (
                sid,
                first,
                last,
                iso(born),
                rng.choice("FM"),
                year,
                rng.choice(CITIES),
                advisor,
                schol,
            )
        )
    con.executemany("INSERT INTO students VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", students)
    courses = []
    cid = 0
    for d, (name, _, titles) in enumerate(DEPARTMENTS, start=1):
        prefix = "".join(w[0] for w in name.split()).upper()[:2] + name[1:3].upper()
        for k, title in enumerate(titles):
            cid += 1
            lvl = 100 * (k % 4 + 1)
            courses.append(
                (cid, f"{prefix}{lvl + k + 1}", title, d, rng.choice([2, 3, 3, 4, 4, 5]), lvl)
            )
    con.executemany("INSERT INTO courses VALUES (?, ?, ?, ?, ?, ?)", courses)
    dept_teachers = {
        d: [t[0] for t in teachers if t[3] == d] for d in range(1, len(DEPARTMENTS) + 1)
    }
    sections = []
    sec = 0
    for term in TERMS:
        for course in courses:
            if rng.random() < 0.75:
                sec += 1
                sections.append(
                    (
                        sec,
                        course[0],
                        rng.choice(dept_teachers[course[3]]),
                        term,
                        maybe(rng, f"{rng.choice('ABCDEFG')}{rng.randint(100, 420)}", 0.1),
                        rng.choice([20, 25, 30, 40, 60]),
                    )
                )
    con.executemany("INSERT INTO sections VALUES (?, ?, ?, ?, ?, ?)", sections)
    by_term: dict[str, list[tuple]] = {}
    for s in sections:
        by_term.setdefault(s[3], []).append(s)
    enrollments = []
    for st in students:
        ability = rng.gauss(75, 9)
        for term in TERMS:
            if int(term[:4]) < st[5] or int(term[:4]) > st[5] + 4:
                continue
            for s in rng.sample(by_term[term], rng.randint(0, 2)):
                score = maybe(rng, round(min(100.0, max(20.0, rng.gauss(ability, 10))), 1), 0.06)
                year, half = int(term[:4]), term[4]
                start = dt.date(year, 1, 5) if half == "S" else dt.date(year, 8, 20)
                enrollments.append(
                    (
                        st[0],
                        s[0],
                        iso(day(rng, start, start + dt.timedelta(days=20))),
                        score,
                        _grade(score),
                    )
                )
    con.executemany("INSERT INTO enrollments VALUES (?, ?, ?, ?, ?)", enrollments)
    con.executemany(
        "INSERT INTO clubs VALUES (?, ?, ?, ?)",
        [
            (i + 1, name, rng.randint(1960, 2018), maybe(rng, rng.randint(1, 80), 0.2))
            for i, name in enumerate(CLUBS)
        ],
    )
    members = []
    for st in students:
        for club in rng.sample(range(1, len(CLUBS) + 1), rng.choice([0, 0, 1, 1, 2])):
            joined = day(rng, dt.date(st[5], 9, 1), dt.date(min(st[5] + 3, 2024), 5, 31))
            members.append((club, st[0], iso(joined), rng.choice(ROLES)))
    con.executemany("INSERT INTO club_members VALUES (?, ?, ?, ?)", members)


NAMED_TEACHER = (
    "SELECT first_name AS first, last_name AS last FROM teachers "
    "GROUP BY first_name, last_name HAVING COUNT(*) = 1"
)

TEMPLATES = (
    Template(
        "students_by_year_city",
        "simple",
        "SELECT DISTINCT enr_yr AS year, home_city AS city FROM students",
        "How many students who enrolled in {year} come from {city}?",
        "enrolled in {year} refers to enr_yr = {year}; come from {city} refers to home_city = '{city}'",
        "SELECT COUNT(*) FROM students WHERE enr_yr = {year} AND home_city = '{city}'",
    ),
    Template(
        "course_by_code",
        "simple",
        "SELECT code FROM courses",
        "What is the title of the course with code {code}, and how many credits is it worth?",
        "",
        "SELECT title, credits FROM courses WHERE code = '{code}'",
    ),
    Template(
        "teacher_email",
        "simple",
        NAMED_TEACHER + " AND MAX(email) IS NOT NULL",
        "What is the email address of the teacher {first} {last}?",
        "",
        "SELECT email FROM teachers WHERE first_name = '{first}' AND last_name = '{last}'",
    ),
    Template(
        "scholarship_top3",
        "simple",
        "SELECT DISTINCT enr_yr AS year FROM students",
        "Which three students who enrolled in {year} have the largest scholarships? List their first and last names from the largest scholarship down.",
        "scholarship refers to schol_amt; enrolled in {year} refers to enr_yr = {year}",
        "SELECT first_name, last_name FROM students WHERE enr_yr = {year} AND schol_amt IS NOT NULL ORDER BY schol_amt DESC LIMIT 3",
        ordered=True,
        top=3,
        keys="SELECT schol_amt FROM students WHERE enr_yr = {year} AND schol_amt IS NOT NULL ORDER BY schol_amt DESC",
    ),
    Template(
        "advisees_of_department",
        "moderate",
        "SELECT d.name AS dept, s.enr_yr AS year FROM departments d, (SELECT DISTINCT enr_yr FROM students) s",
        "How many students who enrolled in {year} are advised by a teacher of the {dept} department?",
        "advised by refers to advisor_id = teacher_id; enrolled in {year} refers to enr_yr = {year}",
        "SELECT COUNT(*) FROM students AS s JOIN teachers AS t ON s.advisor_id = t.teacher_id "
        "JOIN departments AS d ON t.dept_id = d.dept_id WHERE d.name = '{dept}' AND s.enr_yr = {year}",
    ),
    Template(
        "avg_score_course_term",
        "moderate",
        "SELECT DISTINCT c.title AS title, s.term AS term FROM courses c JOIN sections s ON s.course_id = c.course_id",
        "What was the average score of the students taking {title} in term {term}? Round it to two decimals.",
        "term {term} refers to term = '{term}'; average score = ROUND(AVG(score), 2); students who withdrew have no score",
        "SELECT ROUND(AVG(e.score), 2) FROM enrollments AS e JOIN sections AS s ON e.section_id = s.section_id "
        "JOIN courses AS c ON s.course_id = c.course_id WHERE c.title = '{title}' AND s.term = '{term}'",
    ),
    Template(
        "club_roles",
        "moderate",
        "SELECT name AS club FROM clubs",
        "List the full names of the students who hold the role of treasurer or secretary in the {club}.",
        "full name refers to first_name, last_name",
        "SELECT s.first_name, s.last_name FROM club_members AS m JOIN clubs AS c ON m.club_id = c.club_id "
        "JOIN students AS s ON m.student_id = s.student_id WHERE c.name = '{club}' AND m.role IN ('treasurer', 'secretary')",
    ),
    Template(
        "busiest_department",
        "moderate",
        "SELECT DISTINCT term FROM sections",
        "Which department had the most students enrolled in its course sections in term {term}? Give the department name and the number of enrolments.",
        "term {term} refers to term = '{term}'; most students refers to MAX(COUNT(enrollments))",
        "SELECT d.name, COUNT(*) AS n FROM enrollments AS e JOIN sections AS s ON e.section_id = s.section_id "
        "JOIN courses AS c ON s.course_id = c.course_id JOIN departments AS d ON c.dept_id = d.dept_id "
        "WHERE s.term = '{term}' GROUP BY d.dept_id ORDER BY n DESC LIMIT 1",
        top=1,
        keys="SELECT COUNT(*) AS n FROM enrollments AS e JOIN sections AS s ON e.section_id = s.section_id "
        "JOIN courses AS c ON s.course_id = c.course_id WHERE s.term = '{term}' GROUP BY c.dept_id ORDER BY n DESC",
    ),
    Template(
        "grade_a_share",
        "challenging",
        "SELECT d.name AS dept, t.term AS term FROM departments d, (SELECT DISTINCT term FROM sections) t",
        "In term {term}, what percentage of the graded enrolments in {dept} department courses received an A? Round to two decimals.",
        "graded enrolments refers to grade IS NOT NULL; percentage = ROUND(100.0 * SUM(grade = 'A') / COUNT(grade), 2)",
        "SELECT ROUND(100.0 * SUM(CASE WHEN e.grade = 'A' THEN 1 ELSE 0 END) / COUNT(e.grade), 2) "
        "FROM enrollments AS e JOIN sections AS s ON e.section_id = s.section_id JOIN courses AS c ON s.course_id = c.course_id "
        "JOIN departments AS d ON c.dept_id = d.dept_id WHERE d.name = '{dept}' AND s.term = '{term}'",
    ),
    Template(
        "second_highest_paid",
        "challenging",
        "SELECT name AS dept FROM departments",
        "Who is the second highest paid teacher in the {dept} department? Give the full name and salary.",
        "full name refers to first_name, last_name; second highest paid refers to the salary ranked 2 in descending order within the department",
        "SELECT first_name, last_name, salary FROM (SELECT t.first_name, t.last_name, t.salary, "
        "DENSE_RANK() OVER (ORDER BY t.salary DESC) AS rnk FROM teachers AS t JOIN departments AS d ON t.dept_id = d.dept_id "
        "WHERE d.name = '{dept}') WHERE rnk = 2",
        top=2,
        keys="SELECT t.salary FROM teachers AS t JOIN departments AS d ON t.dept_id = d.dept_id WHERE d.name = '{dept}' ORDER BY t.salary DESC",
    ),
    Template(
        "courses_above_average",
        "challenging",
        "SELECT d.name AS dept, t.term AS term FROM departments d, (SELECT DISTINCT term FROM sections) t",
        "Which {dept} courses taught in term {term} had an average score higher than the average score of all enrolments of that term? List the course codes.",
        "average score refers to AVG(score); term {term} refers to term = '{term}'",
        "SELECT c.code FROM enrollments AS e JOIN sections AS s ON e.section_id = s.section_id "
        "JOIN courses AS c ON s.course_id = c.course_id JOIN departments AS d ON c.dept_id = d.dept_id "
        "WHERE d.name = '{dept}' AND s.term = '{term}' GROUP BY c.course_id HAVING AVG(e.score) > "
        "(SELECT AVG(e2.score) FROM enrollments AS e2 JOIN sections AS s2 ON e2.section_id = s2.section_id WHERE s2.term = '{term}')",
    ),
    Template(
        "age_at_enrolment",
        "challenging",
        NAMED_TEACHER,
        "How old on average, in whole years, were the students advised by {first} {last} on January 1st of the year they enrolled? Round to one decimal.",
        "age in whole years on January 1st of enr_yr = enr_yr - year of birth_date - 1 when the birthday is later than January 1st",
        "SELECT ROUND(AVG(s.enr_yr - CAST(strftime('%Y', s.birth_date) AS INTEGER) - (strftime('%m-%d', s.birth_date) > '01-01')), 1) "
        "FROM students AS s JOIN teachers AS t ON s.advisor_id = t.teacher_id WHERE t.first_name = '{first}' AND t.last_name = '{last}'",
    ),
)

SPEC = DatabaseSpec(
    name="school",
    summary="A university's departments, teachers, students, courses, course sections, enrolments and student clubs.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "departments.budget": "annual budget in US dollars",
        "students.enr_yr": "year the student enrolled",
        "students.advisor_id": "teacher_id of the student's academic advisor; NULL when none is assigned",
        "students.schol_amt": "yearly scholarship amount in US dollars; NULL means no scholarship",
        "students.gender": "'F' female, 'M' male",
        "courses.lvl": "course level: 100 introductory to 400 advanced",
        "sections.term": "academic term: year followed by S (spring) or F (fall), e.g. '2023F'",
        "enrollments.score": "final score out of 100; NULL when the student withdrew",
        "enrollments.grade": "letter grade from the score: A >= 90, B >= 80, C >= 70, D >= 60, else F; NULL when withdrawn",
        "clubs.sponsor_id": "teacher_id of the faculty sponsor",
        "club_members.role": "member, treasurer or secretary",
    },
    templates=TEMPLATES,
    seed=101,
)
