"""A retail chain: stores, staff, suppliers, product catalogue, customers, orders."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3

from agentgym_envs.envs.sql.databases.spec import DatabaseSpec, Template
from agentgym_envs.envs.sql.databases.words import (
    ADJECTIVES,
    CITIES,
    LAST_NAMES,
    day,
    iso,
    maybe,
    person,
)

DDL = """
CREATE TABLE stores (
    store_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    opened_on TEXT NOT NULL,
    sq_ft INTEGER
);
CREATE TABLE employees (
    emp_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    store_id INTEGER NOT NULL REFERENCES stores (store_id),
    title TEXT NOT NULL,
    hire_date TEXT NOT NULL,
    hourly_wage REAL NOT NULL,
    mgr_id INTEGER REFERENCES employees (emp_id)
);
CREATE TABLE categories (
    cat_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);
CREATE TABLE suppliers (
    supplier_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    country TEXT NOT NULL
);
CREATE TABLE products (
    product_id INTEGER PRIMARY KEY,
    sku TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    cat_id INTEGER NOT NULL REFERENCES categories (cat_id),
    supplier_id INTEGER NOT NULL REFERENCES suppliers (supplier_id),
    list_price REAL NOT NULL,
    discontinued INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE customers (
    customer_id INTEGER PRIMARY KEY,
    first_name TEXT NOT NULL,
    last_name TEXT NOT NULL,
    email TEXT,
    city TEXT NOT NULL,
    joined_on TEXT NOT NULL,
    tier TEXT NOT NULL
);
CREATE TABLE orders (
    order_id INTEGER PRIMARY KEY,
    customer_id INTEGER REFERENCES customers (customer_id),
    store_id INTEGER NOT NULL REFERENCES stores (store_id),
    order_ts TEXT NOT NULL,
    pay_method TEXT NOT NULL,
    status TEXT NOT NULL
);
CREATE TABLE order_items (
    order_id INTEGER NOT NULL REFERENCES orders (order_id),
    line_no INTEGER NOT NULL,
    product_id INTEGER NOT NULL REFERENCES products (product_id),
    qty INTEGER NOT NULL,
    unit_price REAL NOT NULL,
    disc_pct INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (order_id, line_no)
);
CREATE INDEX ix_employees_store ON employees (store_id);
CREATE INDEX ix_products_cat ON products (cat_id);
CREATE INDEX ix_products_supplier ON products (supplier_id);
CREATE INDEX ix_orders_customer ON orders (customer_id);
CREATE INDEX ix_orders_store ON orders (store_id);
CREATE INDEX ix_order_items_product ON order_items (product_id);
"""

CATEGORIES = {
    "Electronics": [
        "Headphones",
        "Charger",
        "Speaker",
        "Keyboard",
        "Mouse",
        "Webcam",
        "Monitor",
        "Tablet",
    ],
    "Kitchen": ["Kettle", "Blender", "Toaster", "Pan", "Knife Set", "Coffee Maker", "Mixing Bowl"],
    "Garden": ["Hose", "Rake", "Planter", "Shears", "Lawn Chair", "Bird Feeder"],
    "Toys": ["Puzzle", "Board Game", "Kite", "Building Blocks", "Plush Bear", "Toy Car"],
    "Clothing": ["T-Shirt", "Jacket", "Scarf", "Sneakers", "Raincoat", "Hoodie", "Socks"],
    "Books": ["Cookbook", "Atlas", "Novel", "Notebook", "Comic", "Dictionary"],
    "Sports": ["Yoga Mat", "Football", "Tennis Racket", "Water Bottle", "Dumbbell", "Bike Helmet"],
    "Beauty": ["Shampoo", "Face Cream", "Perfume", "Hair Dryer", "Lip Balm"],
    "Office": ["Desk Lamp", "Stapler", "Office Chair", "Whiteboard", "Pen Set"],
    "Pets": ["Dog Bed", "Cat Tree", "Leash", "Aquarium", "Pet Bowl"],
}
COUNTRIES = ["China", "Germany", "Vietnam", "Mexico", "Italy", "USA", "India", "Poland"]
TITLES = ["Cashier"] * 5 + ["Sales Associate"] * 4 + ["Stock Clerk"] * 2 + ["Assistant Manager"]
PAY = ["card", "card", "card", "cash", "mobile", "gift card"]
STATUS = ["completed"] * 16 + ["returned", "cancelled", "cancelled"]
TIERS = ["B"] * 6 + ["S"] * 3 + ["G"]


def populate(con: sqlite3.Connection, rng: random.Random) -> None:
    stores = []
    for sid, city in enumerate(CITIES[:14], start=1):
        opened = day(rng, dt.date(2001, 1, 1), dt.date(2019, 12, 31))
        stores.append(
            (
                sid,
                f"{city} {rng.choice(['Central', 'Plaza', 'Mall', 'Outlet', 'Market'])}",
                city,
                iso(opened),
                maybe(rng, rng.randrange(8000, 60000, 500), 0.1),
            )
        )
    con.executemany("INSERT INTO stores VALUES (?, ?, ?, ?, ?)", stores)
    employees = []
    eid = 0
    for store in stores:
        eid += 1
        manager = eid
        first, last = person(rng)
        employees.append(
            (
                eid,
                first,
                last,
                store[0],
                "Store Manager",
                iso(day(rng, dt.date(2005, 1, 1), dt.date(2020, 1, 1))),
                round(rng.uniform(30, 45), 2),
                None,
            )
        )
        for _ in range(rng.randint(8, 16)):
            eid += 1
            first, last = person(rng)
            boss = manager if rng.random() < 0.9 else rng.randint(1, max(1, manager - 1))
            employees.append(
                (
                    eid,
                    first,
                    last,
                    store[0],
                    rng.choice(TITLES),
                    iso(day(rng, dt.date(2010, 1, 1), dt.date(2024, 6, 1))),
                    round(rng.uniform(14, 28), 2),
                    boss,
                )
            )
    con.executemany("INSERT INTO employees VALUES (?, ?, ?, ?, ?, ?, ?, ?)", employees)
    con.executemany("INSERT INTO categories VALUES (?, ?)", list(enumerate(CATEGORIES, start=1)))
    suppliers = []
    names = set()
    while len(suppliers) < 24:
        name = f"{rng.choice(LAST_NAMES)} {rng.choice(['Trading', 'Goods', 'Imports', 'Manufacturing', 'Supply', 'Brothers'])}"
        if name not in names:
            names.add(name)
            suppliers.append((len(suppliers) + 1, name, rng.choice(COUNTRIES)))
    con.executemany("INSERT INTO suppliers VALUES (?, ?, ?)", suppliers)
    products = []
    for cat_id, (cat, kinds) in enumerate(CATEGORIES.items(), start=1):
        for kind in kinds:
            for variant in rng.sample(ADJECTIVES, rng.randint(3, 6)):
                pid = len(products) + 1
                products.append(
                    (
                        pid,
                        f"{cat[:3].upper()}-{pid:05d}",
                        f"{variant} {kind}",
                        cat_id,
                        rng.randint(1, len(suppliers)),
                        round(rng.uniform(3, 400), 2),
                        int(rng.random() < 0.08),
                    )
                )
    con.executemany("INSERT INTO products VALUES (?, ?, ?, ?, ?, ?, ?)", products)
    customers = []
    for cid in range(1, 1801):
        first, last = person(rng)
        customers.append(
            (
                cid,
                first,
                last,
                maybe(rng, f"{first.lower()}.{last.lower()}{cid}@mail.com", 0.25),
                rng.choice(CITIES),
                iso(day(rng, dt.date(2015, 1, 1), dt.date(2023, 12, 31))),
                rng.choice(TIERS),
            )
        )
    con.executemany("INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)", customers)
    orders, items = [], []
    for oid in range(1, 6001):
        when = dt.datetime(2022, 1, 1) + dt.timedelta(minutes=rng.randrange(0, 3 * 365 * 24 * 60))
        when = when.replace(hour=rng.randint(8, 21))
        orders.append(
            (
                oid,
                maybe(rng, rng.randint(1, len(customers)), 0.12),
                rng.randint(1, len(stores)),
                iso(when),
                rng.choice(PAY),
                rng.choice(STATUS),
            )
        )
        for line in range(1, rng.choice([1, 1, 2, 2, 3, 4]) + 1):
            p = products[rng.randrange(len(products))]
            items.append(
                (
                    oid,
                    line,
                    p[0],
                    rng.choice([1, 1, 1, 2, 2, 3, 5]),
                    p[5],
                    rng.choice([0, 0, 0, 0, 5, 10, 20]),
                )
            )
    con.executemany("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?)", orders)
    con.executemany("INSERT INTO order_items VALUES (?, ?, ?, ?, ?, ?)", items)


REVENUE = "oi.qty * oi.unit_price * (1 - oi.disc_pct / 100.0)"
NAMED_CUSTOMER = "SELECT first_name AS first, last_name AS last FROM customers GROUP BY first_name, last_name HAVING COUNT(*) = 1"

TEMPLATES = (
    Template(
        "orders_by_payment",
        "simple",
        "SELECT s.name AS store, p.pay AS pay, y.year AS year FROM stores s, (SELECT DISTINCT pay_method AS pay FROM orders) p, "
        "(SELECT DISTINCT strftime('%Y', order_ts) AS year FROM orders) y",
        "How many orders placed at the {store} store in {year} were paid by {pay}?",
        "paid by {pay} refers to pay_method = '{pay}'; in {year} refers to strftime('%Y', order_ts) = '{year}'",
        "SELECT COUNT(*) FROM orders AS o JOIN stores AS s ON o.store_id = s.store_id WHERE s.name = '{store}' "
        "AND o.pay_method = '{pay}' AND strftime('%Y', o.order_ts) = '{year}'",
    ),
    Template(
        "price_by_sku",
        "simple",
        "SELECT sku FROM products",
        "What is the list price of the product with SKU {sku}, and is it discontinued?",
        "discontinued = 1 means the product is discontinued",
        "SELECT list_price, discontinued FROM products WHERE sku = '{sku}'",
    ),
    Template(
        "supplier_top5",
        "simple",
        "SELECT name AS supplier FROM suppliers",
        "Which five products supplied by {supplier} have the highest list prices? List the product names from the most expensive down.",
        "",
        "SELECT p.name FROM products AS p JOIN suppliers AS s ON p.supplier_id = s.supplier_id WHERE s.name = '{supplier}' "
        "ORDER BY p.list_price DESC LIMIT 5",
        ordered=True,
        top=5,
        keys="SELECT p.list_price FROM products AS p JOIN suppliers AS s ON p.supplier_id = s.supplier_id WHERE s.name = '{supplier}' ORDER BY p.list_price DESC",
    ),
    Template(
        "gold_customers_city",
        "simple",
        "SELECT DISTINCT city FROM customers",
        "How many gold-tier customers from {city} have no email address on file?",
        "gold tier refers to tier = 'G'; no email refers to email IS NULL",
        "SELECT COUNT(*) FROM customers WHERE city = '{city}' AND tier = 'G' AND email IS NULL",
    ),
    Template(
        "category_revenue_year",
        "moderate",
        "SELECT c.name AS category, y.year AS year FROM categories c, (SELECT DISTINCT strftime('%Y', order_ts) AS year FROM orders) y",
        "What was the revenue of completed orders in the {category} category in {year}? Round to two decimals.",
        "revenue of a line = qty * unit_price * (1 - disc_pct / 100.0); completed refers to status = 'completed'; "
        "in {year} refers to strftime('%Y', order_ts) = '{year}'",
        f"SELECT ROUND(SUM({REVENUE}), 2) FROM order_items AS oi JOIN orders AS o ON oi.order_id = o.order_id "
        "JOIN products AS p ON oi.product_id = p.product_id JOIN categories AS c ON p.cat_id = c.cat_id "
        "WHERE c.name = '{category}' AND o.status = 'completed' AND strftime('%Y', o.order_ts) = '{year}'",
    ),
    Template(
        "busiest_customer",
        "moderate",
        "SELECT DISTINCT city, tier FROM customers",
        "Among the customers from {city} with tier '{tier}', who placed the most orders? Give the first and last name.",
        "most orders refers to MAX(COUNT(order_id))",
        "SELECT c.first_name, c.last_name FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id "
        "WHERE c.city = '{city}' AND c.tier = '{tier}' GROUP BY c.customer_id ORDER BY COUNT(o.order_id) DESC LIMIT 1",
        top=1,
        keys="SELECT COUNT(o.order_id) AS n FROM customers AS c JOIN orders AS o ON o.customer_id = c.customer_id "
        "WHERE c.city = '{city}' AND c.tier = '{tier}' GROUP BY c.customer_id ORDER BY n DESC",
    ),
    Template(
        "manager_elsewhere",
        "moderate",
        "SELECT name AS store FROM stores",
        "List the full names of the employees of the {store} store whose manager works at a different store.",
        "full name refers to first_name, last_name; manager refers to mgr_id = emp_id of the manager",
        "SELECT e.first_name, e.last_name FROM employees AS e JOIN employees AS m ON e.mgr_id = m.emp_id "
        "JOIN stores AS s ON e.store_id = s.store_id WHERE s.name = '{store}' AND m.store_id <> e.store_id",
    ),
    Template(
        "cancel_rate",
        "challenging",
        "SELECT s.name AS store, y.year AS year FROM stores s, (SELECT DISTINCT strftime('%Y', order_ts) AS year FROM orders) y",
        "What percentage of the orders placed at the {store} store in {year} were cancelled? Round to two decimals.",
        "cancelled refers to status = 'cancelled'; percentage = ROUND(100.0 * SUM(status = 'cancelled') / COUNT(*), 2)",
        "SELECT ROUND(100.0 * SUM(CASE WHEN o.status = 'cancelled' THEN 1 ELSE 0 END) / COUNT(*), 2) FROM orders AS o "
        "JOIN stores AS s ON o.store_id = s.store_id WHERE s.name = '{store}' AND strftime('%Y', o.order_ts) = '{year}'",
    ),
    Template(
        "best_month",
        "challenging",
        "SELECT s.name AS store, y.year AS year FROM stores s, (SELECT DISTINCT strftime('%Y', order_ts) AS year FROM orders) y",
        "In which month of {year} did the {store} store have its highest revenue from completed orders? Answer as YYYY-MM with the revenue rounded to two decimals.",
        "month refers to strftime('%Y-%m', order_ts); revenue of a line = qty * unit_price * (1 - disc_pct / 100.0); completed refers to status = 'completed'",
        f"SELECT strftime('%Y-%m', o.order_ts) AS month, ROUND(SUM({REVENUE}), 2) AS revenue FROM orders AS o "
        "JOIN order_items AS oi ON oi.order_id = o.order_id JOIN stores AS s ON o.store_id = s.store_id "
        "WHERE s.name = '{store}' AND o.status = 'completed' AND strftime('%Y', o.order_ts) = '{year}' "
        "GROUP BY month ORDER BY revenue DESC LIMIT 1",
        top=1,
        keys=f"SELECT ROUND(SUM({REVENUE}), 2) AS revenue FROM orders AS o JOIN order_items AS oi ON oi.order_id = o.order_id "
        "JOIN stores AS s ON o.store_id = s.store_id WHERE s.name = '{store}' AND o.status = 'completed' "
        "AND strftime('%Y', o.order_ts) = '{year}' GROUP BY strftime('%Y-%m', o.order_ts) ORDER BY revenue DESC",
    ),
    Template(
        "days_between_orders",
        "challenging",
        NAMED_CUSTOMER,
        "How many days passed between the first and the second order of the customer {first} {last}?",
        "days between = julianday(date(second order_ts)) - julianday(date(first order_ts)); orders are ordered by order_ts",
        "SELECT CAST(julianday(date(MAX(order_ts))) - julianday(date(MIN(order_ts))) AS INTEGER) FROM (SELECT o.order_ts, "
        "ROW_NUMBER() OVER (ORDER BY o.order_ts) AS rn FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id "
        "WHERE c.first_name = '{first}' AND c.last_name = '{last}') WHERE rn <= 2 HAVING COUNT(*) = 2",
        top=1,
        keys="SELECT o.order_ts FROM orders AS o JOIN customers AS c ON o.customer_id = c.customer_id "
        "WHERE c.first_name = '{first}' AND c.last_name = '{last}' ORDER BY o.order_ts",
    ),
    Template(
        "above_category_average",
        "challenging",
        "SELECT c.name AS category, s.name AS supplier FROM categories c JOIN products p ON p.cat_id = c.cat_id "
        "JOIN suppliers s ON p.supplier_id = s.supplier_id GROUP BY c.cat_id, s.supplier_id",
        "Which {category} products from {supplier} are priced above the average list price of their category? List their SKUs.",
        "average list price of the category refers to AVG(list_price) over the products of {category}",
        "SELECT p.sku FROM products AS p JOIN categories AS c ON p.cat_id = c.cat_id JOIN suppliers AS s ON p.supplier_id = s.supplier_id "
        "WHERE c.name = '{category}' AND s.name = '{supplier}' AND p.list_price > (SELECT AVG(p2.list_price) FROM products AS p2 "
        "WHERE p2.cat_id = p.cat_id)",
    ),
)

SPEC = DatabaseSpec(
    name="retail",
    summary="A retail chain's stores, staff, suppliers, product catalogue, customers and sales orders.",
    ddl=DDL,
    populate=populate,
    column_notes={
        "stores.sq_ft": "sales floor area in square feet; NULL when unknown",
        "employees.mgr_id": "emp_id of the employee's manager; NULL for store managers",
        "employees.hourly_wage": "pay per hour in US dollars",
        "products.sku": "stock keeping unit, the product code printed on labels",
        "products.discontinued": "1 if the product is no longer reordered, else 0",
        "customers.tier": "loyalty tier: 'B' bronze, 'S' silver, 'G' gold",
        "orders.customer_id": "NULL for guest purchases",
        "orders.order_ts": "date and time of the order, 'YYYY-MM-DD HH:MM'",
        "orders.status": "completed, returned or cancelled",
        "order_items.unit_price": "price charged per unit before the discount",
        "order_items.disc_pct": "discount on the line in percent (0-100)",
    },
    templates=TEMPLATES,
    seed=202,
)
