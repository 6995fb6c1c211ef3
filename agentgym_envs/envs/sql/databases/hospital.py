"""A hospital: departments, doctors, patients, admissions, diagnoses, prescriptions, lab results."""

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
    floor INTEGER NOT NULL
);
CREATE TABLE doctors (
    doctor_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    dept_id INTEGER NOT NULL REFERENCES departments (dept_id),
    lic_no TEXT NOT NULL UNIQUE,
    hired TEXT NOT NULL
);
CREATE TABLE patients (
    patient_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    sex TEXT NOT NULL,
    dob TEXT NOT NULL,
    blood_type TEXT,
    city TEXT NOT NULL,
    ins_prov TEXT
);
CREATE TABLE diagnoses (
    dx_code TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    category TEXT NOT NULL
);
CREATE TABLE admissions (
    adm_id INTEGER PRIMARY KEY,
    patient_id INTEGER NOT NULL REFERENCES patients (patient_id),
    doctor_id INTEGER NOT NULL REFERENCES doctors (doctor_id),
    admit_dt TEXT NOT NULL,
    disch_dt TEXT,
    dx_code TEXT NOT NULL REFERENCES diagnoses (dx_code),
    er_flag INTEGER NOT NULL
);
CREATE TABLE medications (
    med_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    form TEXT NOT NULL,
    unit_cost REAL NOT NULL
);
CREATE TABLE prescriptions (
    rx_id INTEGER PRIMARY KEY,
    adm_id INTEGER NOT NULL REFERENCES admissions (adm_id),
    med_id INTEGER NOT NULL REFERENCES medications (med_id),
    dose_mg REAL NOT NULL,
    days_supply INTEGER NOT NULL
);
CREATE TABLE lab_results (
    lab_id INTEGER PRIMARY KEY,
    adm_id INTEGER NOT NULL REFERENCES admissions (adm_id),
    test_name TEXT NOT NULL,
    value REAL,
    unit TEXT NOT NULL,
    taken_at TEXT NOT NULL,
    abn_flag TEXT
);
CREATE INDEX ix_doctors_dept ON doctors (dept_id);
CREATE INDEX ix_admissions_patient ON admissions (patient_id);
CREATE INDEX ix_admissions_doctor ON admissions (doctor_id);
CREATE INDEX ix_prescriptions_adm ON prescriptions (adm_id);
CREATE INDEX ix_lab_results_adm ON lab_results (adm_id);
"""

DEPARTMENTS = [
    "Cardiology",
    "Neurology",
    "Oncology",
    "Orthopedics",
    "Pediatrics",
    "Pulmonology",
    "Gastroenterology",
    "Nephrology",
]
DIAGNOSES = [
    ("I21.9", "Acute myocardial infarction", "cardiovascular", 0),
    ("I50.9", "Heart failure", "cardiovascular", 0),
    ("I48.91", "Atrial fibrillation", "cardiovascular", 0),
    ("I10", "Essential hypertension", "cardiovascular", 0),
    ("G40.909", "Epilepsy", "neurological", 1),
    ("I63.9", "Cerebral infarction", "neurological", 1),
    ("G43.909", "Migraine", "neurological", 1),
    ("C34.90", "Lung cancer", "neoplasm", 2),
    ("C50.919", "Breast cancer", "neoplasm", 2),
    ("C18.9", "Colon cancer", "neoplasm", 2),
    ("S72.001", "Fracture of femur", "injury", 3),
    ("S82.201", "Fracture of tibia", "injury", 3),
    ("M17.11", "Osteoarthritis of knee", "musculoskeletal", 3),
    ("J18.9", "Pneumonia", "respiratory", 5),
    ("J44.1", "COPD with exacerbation", "respiratory", 5),
    ("J45.909", "Asthma", "respiratory", 4),
    ("K35.80", "Acute appendicitis", "digestive", 6),
    ("K92.2", "Gastrointestinal hemorrhage", "digestive", 6),
    ("K85.90", "Acute pancreatitis", "digestive", 6),
    ("N17.9", "Acute kidney failure", "renal", 7),
    ("N18.6", "End stage renal disease", "renal", 7),
    ("A09", "Infectious gastroenteritis", "digestive", 4),
]
MEDICATIONS = [
    ("Aspirin", "tablet"),
    ("Atorvastatin", "tablet"),
    ("Metoprolol", "tablet"),
    ("Heparin", "injection"),
    ("Furosemide", "injection"),
    ("Levetiracetam", "tablet"),
    ("Sumatriptan", "tablet"),
    ("Cisplatin", "infusion"),
    ("Paclitaxel", "infusion"),
    ("Morphine", "injection"),
    ("Ibuprofen", "tablet"),
    ("Amoxicillin", "capsule"),
    ("Ceftriaxone", "injection"),
    ("Salbutamol", "inhaler"),
    ("Prednisone", "tablet"),
    ("Omeprazole", "capsule"),
    ("Pantoprazole", "injection"),
    ("Insulin glargine", "injection"),
    ("Paracetamol", "tablet"),
    ("Budesonide", "inhaler"),
    ("Ondansetron", "tablet"),
    ("Enoxaparin", "injection"),
    ("Gabapentin", "capsule"),
    ("Tiotropium", "inhaler"),
]
LABS = [
    ("Hemoglobin", "g/dL", 12.0, 17.5),
    ("Creatinine", "mg/dL", 0.6, 1.3),
    ("Glucose", "mg/dL", 70, 140),
    ("Potassium", "mmol/L", 3.5, 5.1),
    ("Sodium", "mmol/L", 135, 145),
    ("Troponin", "ng/mL", 0.0, 0.04),
    ("White cell count", "10^9/L", 4.0, 11.0),
]
INSURERS = ["Medicare", "Medicaid", "BlueShield", "Aetna", "Cigna", "UnitedHealth"]
BLOOD = ["O+", "O+", "O+", "A+", "A+", "B+", "AB+", "O-", "A-", "B-", "AB-"]


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    con.executemany(
        "INSERT INTO departments VALUES (?, ?, ?)",
        [(i + 1, n, i // 2 + 2) for i, n in enumerate(DEPARTMENTS)],
    )
    doctors = []
    for did in range(1, 57):
        first, last = person(rng)
        doctors.append(
            (
                did,
                first,
                last,
                (did - 1) % len(DEPARTMENTS) + 1,
                f"MD{rng.randrange(100000, 999999)}-{did}",
                iso(day(rng, dt.date(1998, 1, 1), dt.date(2022, 1, 1))),
            )
        )
    con.executemany("INSERT INTO doctors VALUES (?, ?, ?, ?, ?, ?)", doctors)
    patients = []
    for pid in range(1, 2001):
        first, last = person(rng)
        patients.append(
            (
                pid,
                first,
                last,
                rng.choice("FM"),
                iso(day(rng, dt.date(1935, 1, 1), dt.date(2020, 12, 31))),
                maybe(rng, rng.choice(BLOOD), 0.2),
                rng.choice(CITIES),
                maybe(rng, rng.choice(INSURERS), 0.1),
            )
        )
    con.executemany("INSERT INTO patients VALUES (?, ?, ?, ?, ?, ?, ?, ?)", patients)
    con.executemany("INSERT INTO diagnoses VALUES (?, ?, ?)", [d[:3] for d in DIAGNOSES])
    con.executemany(
        "INSERT INTO medications VALUES (?, ?, ?, ?)",
        [(i + 1, n, f, round(rng.uniform(0.05, 180.0), 2)) for i, (n, f) in enumerate(MEDICATIONS)],
    )
    by_dept = {d: [doc for doc in doctors if doc[3] == d] for d in range(1, len(DEPARTMENTS) + 1)}
    admissions, rx, labs = [], [], []
    for pid in range(1, 2001):
        when = dt.datetime(2021, 1, 1) + dt.timedelta(hours=rng.randrange(0, 3 * 365 * 24))
        for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4])):
            dx = rng.choice(DIAGNOSES)
            doc = rng.choice(by_dept[dx[3] + 1])
            stay = dt.timedelta(hours=rng.randint(6, 24 * rng.choice([2, 4, 7, 14])))
            discharge = when + stay
            aid = len(admissions) + 1
            admissions.append(
                (
                    aid,
                    pid,
                    doc[0],
                    iso(when),
                    None
                    if discharge > dt.datetime(2023, 12, 31) or rng.random() < 0.01
                    else iso(discharge),
                    dx[0],
                    int(rng.random() < 0.35),
                )
            )
            for _ in range(rng.randint(0, 4)):
                med = rng.randint(1, len(MEDICATIONS))
                rx.append(
                    (
                        len(rx) + 1,
                        aid,
                        med,
                        float(rng.choice([5, 10, 20, 25, 40, 50, 100, 250, 500])),
                        rng.choice([1, 3, 5, 7, 10, 14, 30]),
                    )
                )
            for name, unit, lo, hi in rng.sample(LABS, rng.randint(1, 4)):
                span = hi - lo
                value = maybe(rng, round(rng.uniform(lo - 0.4 * span, hi + 0.5 * span), 2), 0.03)
                flag = (
                    None if value is None else ("L" if value < lo else "H" if value > hi else "N")
                )
                taken = when + dt.timedelta(minutes=rng.randint(20, 600))
                labs.append((len(labs) + 1, aid, name, value, unit, iso(taken), flag))
            when = discharge + dt.timedelta(days=rng.randint(3, 200))
            if when > dt.datetime(2023, 12, 31):
                break
    con.executemany("INSERT INTO admissions VALUES (?, ?, ?, ?, ?, ?, ?)", admissions)
    con.executemany("INSERT INTO prescriptions VALUES (?, ?, ?, ?, ?)", rx)
    con.executemany("INSERT INTO lab_results VALUES (?, ?, ?, ?, ?, ?, ?)", labs)


NAMED_DOCTOR = "SELECT first_name AS first, last_name AS last FROM doctors GROUP BY first_name, last_name HAVING COUNT(*) = 1"
NAMED_PATIENT = "SELECT first_name AS first, last_name AS last FROM patients GROUP BY first_name, last_name HAVING COUNT(*) = 1"
YEARS = "(SELECT DISTINCT strftime('%Y', admit_dt) AS year FROM admissions)"

TEMPLATES = (
    Template(
        "blood_type_city",
        "simple",
        "SELECT DISTINCT blood_type AS bt, city FROM patients",
        "How many patients living in {city} have blood type {bt}?",
        "blood type {bt} refers to blood_type = '{bt}'",
        "SELECT COUNT(*) FROM patients WHERE city = '{city}' AND blood_type = '{bt}'",
    ),
    Template(
        "diagnosis_code",
        "simple",
        "SELECT dx_code AS code FROM diagnoses",
        "What condition does the diagnosis code {code} stand for, and in which category is it?",
        "",
        "SELECT description, category FROM diagnoses WHERE dx_code = '{code}'",
    ),
    Template(
        "priciest_form",
        "simple",
        "SELECT DISTINCT form FROM medications",
        "Which medication given as {form} has the highest unit cost?",
        "given as {form} refers to form = '{form}'; highest unit cost refers to MAX(unit_cost)",
        "SELECT name FROM medications WHERE form = '{form}' ORDER BY unit_cost DESC LIMIT 1",
        top=1,
        keys="SELECT unit_cost FROM medications WHERE form = '{form}' ORDER BY unit_cost DESC",
    ),
    Template(
        "er_admissions_doctor",
        "moderate",
        "SELECT d.first AS first, d.last AS last, y.year AS year FROM ("
        + NAMED_DOCTOR
        + ") d, "
        + YEARS
        + " y",
        "How many emergency admissions did Dr. {first} {last} handle in {year}?",
        "emergency admission refers to er_flag = 1; in {year} refers to strftime('%Y', admit_dt) = '{year}'",
        "SELECT COUNT(*) FROM admissions AS a JOIN doctors AS d ON a.doctor_id = d.doctor_id WHERE d.first_name = '{first}' "
        "AND d.last_name = '{last}' AND a.er_flag = 1 AND strftime('%Y', a.admit_dt) = '{year}'",
    ),
    Template(
        "patient_medications",
        "moderate",
        NAMED_PATIENT,
        "Which different medications were prescribed to the patient {first} {last} over all their admissions? List the names.",
        "prescriptions belong to admissions (adm_id), admissions to patients (patient_id)",
        "SELECT DISTINCT m.name FROM patients AS p JOIN admissions AS a ON a.patient_id = p.patient_id "
        "JOIN prescriptions AS r ON r.adm_id = a.adm_id JOIN medications AS m ON r.med_id = m.med_id "
        "WHERE p.first_name = '{first}' AND p.last_name = '{last}'",
    ),
    Template(
        "busiest_doctor",
        "moderate",
        "SELECT dp.name AS dept, y.year AS year FROM departments dp, " + YEARS + " y",
        "Which doctor of the {dept} department admitted the most patients in {year}? Give the full name and the number of admissions.",
        "full name refers to first_name, last_name; in {year} refers to strftime('%Y', admit_dt) = '{year}'; most patients refers to MAX(COUNT(adm_id))",
        "SELECT d.first_name, d.last_name, COUNT(*) AS n FROM admissions AS a JOIN doctors AS d ON a.doctor_id = d.doctor_id "
        "JOIN departments AS dp ON d.dept_id = dp.dept_id WHERE dp.name = '{dept}' AND strftime('%Y', a.admit_dt) = '{year}' "
        "GROUP BY d.doctor_id ORDER BY n DESC LIMIT 1",
        top=1,
        keys="SELECT COUNT(*) AS n FROM admissions AS a JOIN doctors AS d ON a.doctor_id = d.doctor_id JOIN departments AS dp "
        "ON d.dept_id = dp.dept_id WHERE dp.name = '{dept}' AND strftime('%Y', a.admit_dt) = '{year}' GROUP BY d.doctor_id ORDER BY n DESC",
    ),
    Template(
        "length_of_stay",
        "challenging",
        "SELECT x.category AS category, y.year AS year FROM (SELECT DISTINCT category FROM diagnoses) x, "
        + YEARS
        + " y",
        "What was the average length of stay, in days, of the finished {category} admissions that began in {year}? Round to two decimals.",
        "length of stay = julianday(disch_dt) - julianday(admit_dt); finished refers to disch_dt IS NOT NULL; "
        "in {year} refers to strftime('%Y', admit_dt) = '{year}'",
        "SELECT ROUND(AVG(julianday(a.disch_dt) - julianday(a.admit_dt)), 2) FROM admissions AS a JOIN diagnoses AS x "
        "ON a.dx_code = x.dx_code WHERE x.category = '{category}' AND a.disch_dt IS NOT NULL AND strftime('%Y', a.admit_dt) = '{year}'",
    ),
    Template(
        "abnormal_share",
        "challenging",
        "SELECT DISTINCT l.test_name AS test, strftime('%Y', l.taken_at) AS year FROM lab_results l",
        "What percentage of the {test} results taken in {year} were flagged as high? Round to two decimals.",
        "flagged as high refers to abn_flag = 'H'; percentage = 100.0 * SUM(abn_flag = 'H') / COUNT(*) over the {test} results of {year}",
        "SELECT ROUND(100.0 * SUM(CASE WHEN abn_flag = 'H' THEN 1 ELSE 0 END) / COUNT(*), 2) FROM lab_results "
        "WHERE test_name = '{test}' AND strftime('%Y', taken_at) = '{year}'",
    ),
    Template(
        "readmission_gap",
        "challenging",
        NAMED_PATIENT,
        "For the patient {first} {last}, how many whole days passed between the end of their first stay and the start of their next admission?",
        "days between = CAST(julianday(next admit_dt) - julianday(first disch_dt) AS INTEGER); admissions are ordered by admit_dt",
        "SELECT CAST(julianday(nxt) - julianday(disch_dt) AS INTEGER) FROM (SELECT a.admit_dt, a.disch_dt, "
        "LEAD(a.admit_dt) OVER (ORDER BY a.admit_dt) AS nxt, ROW_NUMBER() OVER (ORDER BY a.admit_dt) AS rn "
        "FROM admissions AS a JOIN patients AS p ON a.patient_id = p.patient_id WHERE p.first_name = '{first}' AND p.last_name = '{last}') "
        "WHERE rn = 1 AND nxt IS NOT NULL AND disch_dt IS NOT NULL",
        top=1,
        keys="SELECT a.admit_dt FROM admissions AS a JOIN patients AS p ON a.patient_id = p.patient_id "
        "WHERE p.first_name = '{first}' AND p.last_name = '{last}' ORDER BY a.admit_dt",
    ),
    Template(
        "costly_prescriptions",
        "challenging",
        "SELECT dp.name AS dept, y.year AS year FROM departments dp, " + YEARS + " y",
        "For admissions to the {dept} department in {year}, which three medications had the highest total cost? "
        "Cost of a prescription = unit_cost * days_supply. List the names from the highest total down.",
        "department of an admission refers to the dept_id of the admitting doctor; in {year} refers to strftime('%Y', admit_dt) = '{year}'",
        "SELECT m.name FROM prescriptions AS r JOIN medications AS m ON r.med_id = m.med_id JOIN admissions AS a ON r.adm_id = a.adm_id "
        "JOIN doctors AS d ON a.doctor_id = d.doctor_id JOIN departments AS dp ON d.dept_id = dp.dept_id "
        "WHERE dp.name = '{dept}' AND strftime('%Y', a.admit_dt) = '{year}' GROUP BY m.med_id ORDER BY SUM(m.unit_cost * r.days_supply) DESC LIMIT 3",
        ordered=True,
        top=3,
        keys="SELECT ROUND(SUM(m.unit_cost * r.days_supply), 6) AS c FROM prescriptions AS r JOIN medications AS m ON r.med_id = m.med_id "
        "JOIN admissions AS a ON r.adm_id = a.adm_id JOIN doctors AS d ON a.doctor_id = d.doctor_id JOIN departments AS dp "
        "ON d.dept_id = dp.dept_id WHERE dp.name = '{dept}' AND strftime('%Y', a.admit_dt) = '{year}' GROUP BY m.med_id ORDER BY c DESC",
    ),
)

SPEC = DatabaseSpec(
    name="hospital",
    summary="A hospital's departments, doctors, patients, admissions with diagnoses, prescriptions and laboratory results.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "doctors.lic_no": "medical licence number",
        "patients.dob": "date of birth",
        "patients.blood_type": "ABO group and Rh factor, e.g. 'O+'; NULL when not recorded",
        "patients.ins_prov": "insurance provider; NULL for uninsured patients",
        "diagnoses.dx_code": "ICD-10 diagnosis code",
        "admissions.admit_dt": "admission date and time, 'YYYY-MM-DD HH:MM'",
        "admissions.disch_dt": "discharge date and time; NULL while the patient is still admitted",
        "admissions.er_flag": "1 if the patient came in through the emergency room",
        "admissions.doctor_id": "admitting doctor; the admission belongs to this doctor's department",
        "medications.unit_cost": "cost of one day's supply in US dollars",
        "prescriptions.days_supply": "number of days the prescription covers",
        "lab_results.abn_flag": "'H' above the normal range, 'L' below, 'N' normal; NULL when the value is missing",
    },
    templates=TEMPLATES,
    seed=404,
)
